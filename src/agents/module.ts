import { defineModule } from '../platform/module.ts';
import { agentSchemas, chatSchemas } from './schemas.ts';
import { PRESENTERS } from '../presenters/contract.ts';
import { VOICES } from '../voices/contract.ts';
import { STREAMS } from '../streams/contract.ts';
import { TOOL_CALLS } from '../tools/contract.ts';
import { SECRET_STORE } from '../secrets/contract.ts';
import { AUDIT } from '../audit/contract.ts';
import { agentStoreOn } from './store-pg.ts';
import { chatStoreOn } from './chat/store-pg.ts';
import { agentRoutes } from './routes.ts';
import type { AgentDeps } from './service.ts';
import { chatRoutes } from './chat/routes.ts';
import type { ChatDeps } from './chat/service.ts';
import { agentSettings } from './settings.ts';
import { createNotifications } from './notifications.ts';
import { agentStreamVariant } from './streams.ts';
import { CHAT_MASKINGS, maskStoredChats } from './chat/scrub.ts';
import { CLIENT_KEY_OWNERS } from '../platform/caller.ts';
import { provide } from '../platform/service-key.ts';
import { deriveKey } from '../keys.ts';
import { clientKeyStoreOn } from './client-keys/store-pg.ts';
import { clientKeyRoutes } from './client-keys/routes.ts';

/**
 * Agents: a presenter (a photo or a clip presenter, with a voice), a language model reached
 * with a vault secret, and the user's tools it may call (docs/agents.md). Chats and streams
 * of an agent build on these records.
 */
export const agentsModule = defineModule({
  name: 'agents',
  config: agentSettings,
  needs: [PRESENTERS, SECRET_STORE, AUDIT],
  uses: [VOICES, TOOL_CALLS, STREAMS],
  // The owners of browsers' client keys (docs/agents.md, "Client keys"): the edge verifies them.
  provides: [CLIENT_KEY_OWNERS],
  create(p, limits, services) {
    const streams = services.find(STREAMS);
    const agents = agentStoreOn(p.store);
    const deps: AgentDeps = {
      config: p.config,
      store: agents,
      clock: p.clock,
      newId: p.newId,
      media: p.media,
      presenters: services.get(PRESENTERS),
      voices: services.find(VOICES),
      schemas: agentSchemas(p.config.storageScheme),
    };
    const chat: ChatDeps = {
      agents,
      chats: chatStoreOn(p.store),
      secrets: { secretStore: services.get(SECRET_STORE), vault: p.vault, clock: p.clock, newId: p.newId },
      client: p.client,
      audit: services.get(AUDIT),
      toolCalls: services.find(TOOL_CALLS),
      streams,
      notifications: createNotifications(),
      clock: p.clock,
      newId: p.newId,
      log: p.log,
      schemas: chatSchemas(),
      limits,
    };
    const clientKeys = { store: clientKeyStoreOn(p.store), clock: p.clock, newId: p.newId, hashKey: deriveKey(p.config.masterKey, 'client-key-hash') };
    return {
      deps,
      provides: [provide(CLIENT_KEY_OWNERS, clientKeys.store)],
      routes: [...agentRoutes(deps), ...clientKeyRoutes(clientKeys, agents), ...chatRoutes(chat), ...(streams?.streamRoutes(agentStreamVariant(deps)) ?? [])],
      sockets: [chat.notifications.socket],
      dataMigrations: CHAT_MASKINGS.map((name) => maskStoredChats({ chats: chat.chats, secrets: chat.secrets, log: p.log }, name)),
    };
  },
});
