import type { Store } from './client.ts';
import { randomId, systemClock } from '../clock.ts';
import { createJobQueue } from '../jobs/queue.ts';
import { createSqliteResourceStore, type EnqueueJob, type ResourceStore } from '../resources/store.ts';
import { createSqliteUserStore, type UserStore } from '../users/store.ts';

/**
 * Every store of the service, built for one database. Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside `createSqliteStores`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  /** Every asynchronous resource (animations, later clips, consents, avatars): src/resources/store.ts. */
  readonly resources: ResourceStore;
  /** Users, their API keys and credits: src/users/store.ts. */
  readonly users: UserStore;
}

export interface SqliteStoreOptions {
  /**
   * The synchronous job insert that `resources.create` runs inside its transaction; by default
   * a job queue on the same handle. (The composition root passes its queue's `enqueue`.)
   */
  enqueueJob?: EnqueueJob;
}

export function createSqliteStores(handle: Store, opts: SqliteStoreOptions = {}): Stores {
  const enqueueJob = opts.enqueueJob ?? createJobQueue(handle.sqlite, systemClock, randomId).enqueue;
  return { handle, resources: createSqliteResourceStore(handle, enqueueJob), users: createSqliteUserStore(handle) };
}
