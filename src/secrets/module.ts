import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { AUDIT } from '../audit/contract.ts';
import { OAUTH2_REFRESHER, SECRET_STORE } from './contract.ts';
import { createSecretLock } from './lock-store.ts';
import { secretStoreOn } from './store-pg.ts';
import type { SecretDeps } from './deps.ts';
import { createOAuth2Refresher } from './oauth2/index.ts';
import { auditRefresh, createVaultTokenStore } from './oauth2-tokens.ts';
import { secretRoutes } from './routes.ts';
import { SECRET_COMMANDS } from './cli.ts';
import { deriveKey } from '../keys.ts';
import { CALLBACK_PATH, SWEEP_EVERY_MS, sweepConnections } from './oauth2-connect/flow.ts';
import { connectRoutes } from './oauth2-connect/routes.ts';
import { connectionStoreOn } from './oauth2-connect/store-pg.ts';

/** Credentials sealed in the vault (POST /secrets ...); their values never leave it. */
export const secretsModule = defineModule({
  name: 'secrets',
  commands: SECRET_COMMANDS,
  needs: [AUDIT],
  provides: [OAUTH2_REFRESHER, SECRET_STORE],
  create(p, _settings, services) {
    const deps: SecretDeps = { secretStore: secretStoreOn(p.store), vault: p.vault, clock: p.clock, newId: p.newId };
    const audit = services.get(AUDIT);
    // One refresher per process: the tool calls use it (OAUTH2_REFRESHER) to send oauth2 secrets.
    const refresher = createOAuth2Refresher({
      tokens: createVaultTokenStore(deps),
      lock: createSecretLock(p.store),
      client: p.client,
      clock: p.clock,
      log: p.log,
      onEvent: (e) => {
        auditRefresh({ ...deps, audit }, e).catch((err: unknown) => p.log.error('oauth2: the refresh audit row was not written', { error: String(err) }));
      },
    });
    const connect = {
      ...deps,
      connections: connectionStoreOn(p.store),
      client: p.client,
      log: p.log,
      stateKey: deriveKey(p.config.masterKey, 'oauth-state'),
      redirectUri: `${p.config.publicUrl}${CALLBACK_PATH}`,
    };
    const sweep = () => sweepConnections(connect).catch((err: unknown) => p.log.error('oauth2: connect attempts not swept', { error: (err as Error)?.name }));
    let sweeper: NodeJS.Timeout | undefined;
    return {
      deps,
      provides: [provide(OAUTH2_REFRESHER, refresher), provide(SECRET_STORE, deps.secretStore)],
      routes: [...secretRoutes(deps, p.config.publicUrl), ...connectRoutes(connect)],
      start() {
        void sweep();
        sweeper = setInterval(() => void sweep(), SWEEP_EVERY_MS).unref();
      },
      async stop() {
        clearInterval(sweeper);
      },
    };
  },
});
