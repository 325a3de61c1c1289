import { onDialect, type Database } from '../db/database.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createJobStore, type JobQueue } from '../jobs/store.ts';
import { createPgJobStore } from '../jobs/store-pg.ts';
import { createComputeTasks, type ComputeTasks, type ComputeTasksOptions } from '../compute/remote/task-store.ts';
import { createPgComputeTasks } from '../compute/remote/task-store-pg.ts';
import { createWorkerTokenStore, type WorkerTokenStore } from '../compute/remote/token-store.ts';
import { createPgWorkerTokenStore } from '../compute/remote/token-store-pg.ts';
import { createSqliteVaultStore, type VaultStore } from '../vault/store.ts';
import { createPgVaultStore } from '../vault/store-pg.ts';

/**
 * The infrastructure's stores, built by the kernel for one database: the job queue, compute
 * tasks, worker tokens and the vault's keys. The kit builds its resource store and each
 * capability its own stores from the same handle. Here, not in src/db/: db/ is what those
 * stores stand on, and building them there made db/ import jobs/, compute/ and vault/,
 * which import db/ (a folder cycle). Domain code receives these async
 * interfaces and never the SQL handle: each store has a SQLite and a PostgreSQL factory
 * (`store-pg.ts` beside `store.ts`), picked by `onDialect`, and the contract suite under
 * test/stores/ runs on both.
 */
export interface Stores {
  /** The database, for the store modules that are built from it. */
  readonly handle: Database;
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

/** Each infrastructure store's factory on the database's dialect (a test may build one alone). */
export function storeMakers(handle: Database, opts: StoreOptions = {}): { [K in Exclude<keyof Stores, 'handle'>]: () => Stores[K] } {
  const clock = opts.clock ?? systemClock;
  const newId = opts.newId ?? randomId;
  const compute = opts.compute ?? { leaseMs: 30_000, maxAttempts: 3 };
  return {
    jobs: () => onDialect(handle, { sqlite: (h) => createJobStore(h, clock, newId), postgres: (h) => createPgJobStore(h, clock, newId) }),
    computeTasks: () => onDialect(handle, { sqlite: (h) => createComputeTasks(h, clock, newId, compute), postgres: (h) => createPgComputeTasks(h, clock, newId, compute) }),
    workerTokens: () => onDialect(handle, { sqlite: createWorkerTokenStore, postgres: createPgWorkerTokenStore }),
    vault: () => onDialect(handle, { sqlite: createSqliteVaultStore, postgres: createPgVaultStore }),
  };
}

export function createStores(handle: Database, opts: StoreOptions = {}): Stores {
  const make = storeMakers(handle, opts);
  return { handle, jobs: make.jobs(), computeTasks: make.computeTasks(), workerTokens: make.workerTokens(), vault: make.vault() };
}
