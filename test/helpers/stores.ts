/**
 * Every store of the service on one database handle, composed for tests. The service builds
 * them where they belong: src/db/stores.ts the infrastructure's, the kit its resource store,
 * each capability its own in its module; a test that reads or seeds rows directly takes them
 * all from here.
 */
import type { Store } from '../../src/db/client.ts';
import { createSqliteStores, type StoreOptions, type Stores } from '../../src/db/stores.ts';
import { createSqliteResourceStore, type EnqueueJob, type ResourceStore } from '../../src/resources/store.ts';
import { createSqliteUserStore, type UserStore } from '../../src/users/store.ts';

export interface AllStores extends Stores {
  /** The kit's: every asynchronous resource (src/resources/store.ts). */
  readonly resources: ResourceStore;
  /** The users capability's: users, their API keys and credits. */
  readonly users: UserStore;
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
  };
}
