import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { TOOL_CALLS } from './contract.ts';
import { createOAuth2Refresher, auditRefresh, createVaultTokenStore, type SecretDeps } from '../secrets/contract.ts';
import { callTool, type ToolCallDeps } from './call.ts';
import { toolRoutes } from './routes.ts';
import { toolSettings } from './settings.ts';

/** Server and client tools, and guarded calls that attach a secret's auth header. */
export const toolsModule = defineModule({
  name: 'tools',
  config: toolSettings,
  provides: [TOOL_CALLS],
  create(p, limits) {
    const secrets: SecretDeps = { secretStore: p.stores.secrets, vault: p.vault, clock: p.clock, newId: p.newId };
    const refresher = createOAuth2Refresher({
      tokens: createVaultTokenStore(secrets),
      lock: p.stores.secretLocks,
      client: p.client,
      clock: p.clock,
      log: p.log,
      onEvent: (e) => {
        auditRefresh({ ...secrets, audit: p.stores.audit }, e).catch((err: unknown) => p.log.error('oauth2: the refresh audit row was not written', { error: String(err) }));
      },
    });
    const deps: ToolCallDeps = { ...secrets, toolStore: p.stores.tools, client: p.client, refresher, log: p.log, limits };
    const calls = provide(TOOL_CALLS, {
      get: (userId, toolId) => deps.toolStore.get(userId, toolId),
      call: (userId, toolId, raw, via) => callTool(deps, userId, toolId, raw, via),
    });
    return { deps, provides: [calls], routes: toolRoutes(deps) };
  },
});
