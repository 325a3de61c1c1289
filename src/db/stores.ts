import type { Store } from './client.ts';
import { createSqliteUserStore, type UserStore } from '../users/store.ts';

/**
 * Every store of the service, built for one database. Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside `createSqliteStores`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  readonly users: UserStore;
}

export function createSqliteStores(handle: Store): Stores {
  return { handle, users: createSqliteUserStore(handle) };
}
