import type { Store } from './client.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createJobStore, type JobQueue } from '../jobs/store.ts';
import { createLeaseLock, type LeaseLock } from '../jobs/lock-store.ts';
import { createComputeTasks, type ComputeTasks, type ComputeTasksOptions } from '../compute/remote/task-store.ts';
import { createOutboxStore, type OutboxStore } from '../webhooks/outbox-store.ts';
import { createWorkerTokenStore, type WorkerTokenStore } from '../compute/remote/token-store.ts';
import { createSqliteVaultStore, type VaultStore } from '../vault/store.ts';
import { createSqliteSecretStore, type SecretStore } from '../secrets/store.ts';
import { createSqliteToolStore, type ToolStore } from '../tools/store.ts';
import { createSqliteAuditStore, type AuditStore } from '../audit/store.ts';
import { createSqliteWebhookSecretStore, type WebhookSecretStore } from '../webhooks/secrets-store.ts';
import { createSqliteAgentStore, type AgentStore } from '../agents/store.ts';
import { createSqliteChatStore, type ChatStore } from '../agents/chat/store.ts';

/**
 * Every store of the service, built for one database. Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside `createSqliteStores`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  readonly jobs: JobQueue;
  readonly computeTasks: ComputeTasks;
  readonly outbox: OutboxStore;
  readonly workerTokens: WorkerTokenStore;
  /** The oauth2 refresh lock on `secrets` rows. */
  readonly secretLocks: LeaseLock;
  /** Key-encryption keys, the master key check, and the re-wrap of data keys. */
  readonly vault: VaultStore;
  /** Secrets and their sealed values. */
  readonly secrets: SecretStore;
  readonly tools: ToolStore;
  readonly audit: AuditStore;
  /** Per-user webhook signing secrets (sealed). */
  readonly webhookSecrets: WebhookSecretStore;
  /** Agents and the tools each may call. */
  readonly agents: AgentStore;
  /** Agent chats and their messages. */
  readonly agentChats: ChatStore;
}

export interface StoreOptions {
  clock?: Clock;
  newId?: IdFactory;
  compute?: ComputeTasksOptions;
}

export function createSqliteStores(handle: Store, opts: StoreOptions = {}): Stores {
  const clock = opts.clock ?? systemClock;
  const newId = opts.newId ?? randomId;
  const jobs = createJobStore(handle, clock, newId);
  return {
    handle,
    jobs,
    computeTasks: createComputeTasks(handle, clock, newId, opts.compute ?? { leaseMs: 30_000, maxAttempts: 3 }),
    outbox: createOutboxStore(handle, newId),
    workerTokens: createWorkerTokenStore(handle),
    secretLocks: createLeaseLock(handle.sqlite, { table: 'secrets', id: 'id', owner: 'lock_owner', until: 'lock_until' }),
    vault: createSqliteVaultStore(handle),
    secrets: createSqliteSecretStore(handle),
    tools: createSqliteToolStore(handle),
    audit: createSqliteAuditStore(handle),
    webhookSecrets: createSqliteWebhookSecretStore(handle.db),
    agents: createSqliteAgentStore(handle),
    agentChats: createSqliteChatStore(handle),
  };
}
