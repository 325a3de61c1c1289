import type { PgDatabase } from '../../db/pg/database.ts';
import { createSqliteChatStore, type ChatStore } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/** The PostgreSQL ChatStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgChatStore(_h: PgDatabase): ChatStore {
  throw new Error('ChatStore on PostgreSQL is not written yet');
}

/** The ChatStore on the database's dialect. */
export const chatStoreOn = (database: Database): ChatStore => onDialect(database, { sqlite: createSqliteChatStore, postgres: createPgChatStore });
