import { defineModule } from '../platform/module.ts';
import { agentSchemas } from '../schemas/agents.ts';
import { createPresenterCatalogue } from '../presenters/catalogue.ts';
import { agentRoutes } from './routes.ts';
import type { AgentDeps } from './service.ts';

/**
 * Agents: a presenter (a photo or a clip presenter, with a voice), a language model reached
 * with a vault secret, and the user's tools it may call (docs/agents.md). Chats and streams
 * of an agent build on these records.
 */
export const agentsModule = defineModule({
  name: 'agents',
  create(p) {
    const deps: AgentDeps = {
      config: p.config,
      store: p.stores.agents,
      clock: p.clock,
      newId: p.newId,
      media: p.media,
      presenters: createPresenterCatalogue({ media: p.media }),
      voices: p.voices,
      schemas: agentSchemas(p.config.storageScheme),
    };
    return { deps, routes: agentRoutes(deps) };
  },
});
