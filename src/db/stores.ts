import type { Store } from './client.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createJobStore, type JobQueue } from '../jobs/store.ts';
import { createComputeTasks, type ComputeTasks, type ComputeTasksOptions } from '../compute/remote/task-store.ts';
import { createOutboxStore, type OutboxStore } from '../webhooks/outbox-store.ts';
import { createWorkerTokenStore, type WorkerTokenStore } from '../compute/remote/token-store.ts';
import { createSqliteVaultStore, type VaultStore } from '../vault/store.ts';
import { createSqliteWebhookSecretStore, type WebhookSecretStore } from '../webhooks/secrets-store.ts';

/**
 * The infrastructure's stores, built for one database: the job queue, compute tasks, worker
 * tokens and the vault's keys (and, until the webhooks module builds them beside its
 * dispatcher, the webhooks' outbox and signing secrets). The kit builds its resource store and
 * each capability its own stores from the same handle. Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside each `createSqlite...`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  readonly jobs: JobQueue;
  readonly computeTasks: ComputeTasks;
  readonly outbox: OutboxStore;
  readonly workerTokens: WorkerTokenStore;
  /** Key-encryption keys, the master key check, and the re-wrap of data keys. */
  readonly vault: VaultStore;
  /** Per-user webhook signing secrets (sealed). */
  readonly webhookSecrets: WebhookSecretStore;
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
    vault: createSqliteVaultStore(handle),
    webhookSecrets: createSqliteWebhookSecretStore(handle.db),
  };
}
