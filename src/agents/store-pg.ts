import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteAgentStore, type AgentStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL AgentStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgAgentStore(_h: PgDatabase): AgentStore {
  throw new Error('AgentStore on PostgreSQL is not written yet');
}

/** The AgentStore on the database's dialect. */
export const agentStoreOn = (database: Database): AgentStore => onDialect(database, { sqlite: createSqliteAgentStore, postgres: createPgAgentStore });
