import type { PgDatabase } from '../../db/pg/database.ts';
import { createWorkerTokenStore, type WorkerTokenStore } from './token-store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/** The PostgreSQL WorkerTokenStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgWorkerTokenStore(_h: PgDatabase): WorkerTokenStore {
  throw new Error('WorkerTokenStore on PostgreSQL is not written yet');
}

/** The WorkerTokenStore on the database's dialect. */
export const workerTokenStoreOn = (database: Database): WorkerTokenStore => onDialect(database, { sqlite: createWorkerTokenStore, postgres: createPgWorkerTokenStore });
