import type { Store } from '../db/client.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createJobStore, type JobQueue } from '../jobs/store.ts';
import { createComputeTasks, type ComputeTasks, type ComputeTasksOptions } from '../compute/remote/task-store.ts';
import { createWorkerTokenStore, type WorkerTokenStore } from '../compute/remote/token-store.ts';
import { createSqliteVaultStore, type VaultStore } from '../vault/store.ts';

/**
 * The infrastructure's stores, built by the kernel for one database: the job queue, compute
 * tasks, worker tokens and the vault's keys. The kit builds its resource store and each
 * capability its own stores from the same handle. Here, not in src/db/: db/ is what those
 * stores stand on, and building them there made db/ import jobs/, compute/ and vault/,
 * which import db/ (a folder cycle). Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside each `createSqlite...`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  readonly jobs: JobQueue;
  readonly computeTasks: ComputeTasks;
  readonly workerTokens: WorkerTokenStore;
  /** Key-encryption keys, the master key check, and the re-wrap of data keys. */
  readonly vault: VaultStore;
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
    workerTokens: createWorkerTokenStore(handle),
    vault: createSqliteVaultStore(handle),
  };
}
