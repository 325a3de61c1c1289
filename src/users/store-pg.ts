import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteUserStore, type UserStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL UserStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgUserStore(_h: PgDatabase): UserStore {
  throw new Error('UserStore on PostgreSQL is not written yet');
}

/** The UserStore on the database's dialect. */
export const userStoreOn = (database: Database): UserStore => onDialect(database, { sqlite: createSqliteUserStore, postgres: createPgUserStore });
