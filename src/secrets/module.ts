import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { OAUTH2_REFRESHER } from './contract.ts';
import type { SecretDeps } from './deps.ts';
import { createOAuth2Refresher } from './oauth2/index.ts';
import { auditRefresh, createVaultTokenStore } from './oauth2-tokens.ts';
import { secretRoutes } from './routes.ts';
import { SECRET_COMMANDS } from './cli.ts';

/** Credentials sealed in the vault (POST /secrets ...); their values never leave it. */
export const secretsModule = defineModule({
  name: 'secrets',
  commands: SECRET_COMMANDS,
  provides: [OAUTH2_REFRESHER],
  create(p) {
    const deps: SecretDeps = { secretStore: p.stores.secrets, vault: p.vault, clock: p.clock, newId: p.newId };
    // One refresher per process: the tool calls use it (OAUTH2_REFRESHER) to send oauth2 secrets.
    const refresher = createOAuth2Refresher({
      tokens: createVaultTokenStore(deps),
      lock: p.stores.secretLocks,
      client: p.client,
      clock: p.clock,
      log: p.log,
      onEvent: (e) => {
        auditRefresh({ ...deps, audit: p.stores.audit }, e).catch((err: unknown) => p.log.error('oauth2: the refresh audit row was not written', { error: String(err) }));
      },
    });
    return { deps, provides: [provide(OAUTH2_REFRESHER, refresher)], routes: secretRoutes(deps, p.config.publicUrl) };
  },
});
