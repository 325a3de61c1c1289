import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteAccountStore, type AccountStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL AccountStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgAccountStore(_h: PgDatabase): AccountStore {
  throw new Error('AccountStore on PostgreSQL is not written yet');
}

/** The AccountStore on the database's dialect. */
export const accountStoreOn = (database: Database): AccountStore => onDialect(database, { sqlite: createSqliteAccountStore, postgres: createPgAccountStore });
