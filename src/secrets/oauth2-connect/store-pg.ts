import type { PgDatabase } from '../../db/pg/database.ts';
import { createSqliteConnectionStore, type ConnectionStore } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/** The PostgreSQL ConnectionStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgConnectionStore(_h: PgDatabase): ConnectionStore {
  throw new Error('ConnectionStore on PostgreSQL is not written yet');
}

/** The ConnectionStore on the database's dialect. */
export const connectionStoreOn = (database: Database): ConnectionStore => onDialect(database, { sqlite: createSqliteConnectionStore, postgres: createPgConnectionStore });
