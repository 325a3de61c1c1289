import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { TOOL_CALLS } from './contract.ts';
import { OAUTH2_REFRESHER, SECRET_STORE, type SecretDeps } from '../secrets/contract.ts';
import { toolStoreOn } from './store-pg.ts';
import { callTool, type ToolCallDeps } from './call.ts';
import { toolRoutes } from './routes.ts';
import { toolSettings } from './settings.ts';

/** Server and client tools, and guarded calls that attach a secret's auth header. */
export const toolsModule = defineModule({
  name: 'tools',
  config: toolSettings,
  needs: [OAUTH2_REFRESHER, SECRET_STORE],
  provides: [TOOL_CALLS],
  create(p, limits, services) {
    const secrets: SecretDeps = { secretStore: services.get(SECRET_STORE), vault: p.vault, clock: p.clock, newId: p.newId };
    const refresher = services.get(OAUTH2_REFRESHER);
    const deps: ToolCallDeps = { ...secrets, toolStore: toolStoreOn(p.store), client: p.client, refresher, log: p.log, limits };
    const calls = provide(TOOL_CALLS, {
      get: (userId, toolId) => deps.toolStore.get(userId, toolId),
      call: (userId, toolId, raw, via) => callTool(deps, userId, toolId, raw, via),
    });
    return { deps, provides: [calls], routes: toolRoutes(deps) };
  },
});
