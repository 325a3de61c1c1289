import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteResourceStore, type EnqueueJob, type ResourceStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL ResourceStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgResourceStore(_h: PgDatabase): ResourceStore {
  throw new Error('ResourceStore on PostgreSQL is not written yet');
}

/**
 * The ResourceStore on the database's dialect. On SQLite `enqueueJob` (synchronous) runs inside
 * the store's transaction; on PostgreSQL the store inserts the job row in its own transaction.
 */
export const resourceStoreOn = (database: Database, enqueueJob: EnqueueJob): ResourceStore =>
  onDialect(database, { sqlite: (h) => createSqliteResourceStore(h, enqueueJob), postgres: createPgResourceStore });
