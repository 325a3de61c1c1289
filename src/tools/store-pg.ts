import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteToolStore, type ToolStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL ToolStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgToolStore(_h: PgDatabase): ToolStore {
  throw new Error('ToolStore on PostgreSQL is not written yet');
}

/** The ToolStore on the database's dialect. */
export const toolStoreOn = (database: Database): ToolStore => onDialect(database, { sqlite: createSqliteToolStore, postgres: createPgToolStore });
