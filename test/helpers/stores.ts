/**
 * Every store of the service on one database handle, composed for tests. The service builds
 * them where they belong: src/platform/stores.ts the infrastructure's, the kit its resource store,
 * each capability its own in its module; a test that reads or seeds rows directly takes them
 * all from here.
 */
import type { Store } from '../../src/db/client.ts';
import { createSqliteStores, type StoreOptions, type Stores } from '../../src/platform/stores.ts';
import type { LeaseLock } from '../../src/jobs/lock-store.ts';
import { createSqliteResourceStore, type EnqueueJob, type ResourceStore } from '../../src/resources/store.ts';
import { createSqliteUserStore, type UserStore } from '../../src/users/store.ts';
import { createSqliteSecretStore, type SecretStore } from '../../src/secrets/store.ts';
import { createSqliteConnectionStore, type ConnectionStore } from '../../src/secrets/oauth2-connect/store.ts';
import { createSecretLock } from '../../src/secrets/lock-store.ts';
import { createSqliteToolStore, type ToolStore } from '../../src/tools/store.ts';
import { createSqliteAuditStore, type AuditStore } from '../../src/audit/store.ts';
import { createSqliteAgentStore, type AgentStore } from '../../src/agents/store.ts';
import { createSqliteChatStore, type ChatStore } from '../../src/agents/chat/store.ts';
import { createSqliteClientKeyStore, type ClientKeyStore } from '../../src/agents/client-keys/store.ts';
import { createOutboxStore, type OutboxStore } from '../../src/webhooks/outbox-store.ts';
import { webhookSecretStoreOn, type WebhookSecretStore } from '../../src/webhooks/secrets-store.ts';
import { createSqliteAccountStore, type AccountStore } from '../../src/accounts/store.ts';

export interface AllStores extends Stores {
  /** The kit's: every asynchronous resource (src/resources/store.ts). */
  readonly resources: ResourceStore;
  /** The users capability's: users, their API keys and credits. */
  readonly users: UserStore;
  /** The secrets capability's: secrets and their sealed values, and the oauth2 refresh lock on their rows. */
  readonly secrets: SecretStore;
  readonly secretLocks: LeaseLock;
  /** The secrets capability's OAuth connect attempts. */
  readonly oauthConnections: ConnectionStore;
  readonly tools: ToolStore;
  readonly audit: AuditStore;
  /** The agents capability's: agents and the tools each may call, their chats and messages. */
  readonly agents: AgentStore;
  readonly agentChats: ChatStore;
  /** Browsers' client keys of agents. */
  readonly clientKeys: ClientKeyStore;
  /** The webhooks capability's: the outbox's messages and attempts, and the per-user signing secrets (sealed). */
  readonly outbox: OutboxStore;
  readonly webhookSecrets: WebhookSecretStore;
  /** The accounts capability's: emails and password hashes, studio sessions, one-time tokens, signing keys, sign-in counters. */
  readonly accounts: AccountStore;
}

export interface AllStoreOptions extends StoreOptions {
  /** The synchronous job insert that `resources.create` runs inside its transaction; by default this database's job store. */
  enqueueJob?: EnqueueJob;
}

export function createAllStores(handle: Store, opts: AllStoreOptions = {}): AllStores {
  const infrastructure = createSqliteStores(handle, opts);
  return {
    ...infrastructure,
    resources: createSqliteResourceStore(handle, opts.enqueueJob ?? infrastructure.jobs.enqueue),
    users: createSqliteUserStore(handle),
    secrets: createSqliteSecretStore(handle),
    secretLocks: createSecretLock(handle),
    oauthConnections: createSqliteConnectionStore(handle),
    tools: createSqliteToolStore(handle),
    audit: createSqliteAuditStore(handle),
    agents: createSqliteAgentStore(handle),
    agentChats: createSqliteChatStore(handle),
    clientKeys: createSqliteClientKeyStore(handle),
    outbox: createOutboxStore(handle, opts.newId),
    webhookSecrets: webhookSecretStoreOn(handle),
    accounts: createSqliteAccountStore(handle),
  };
}
