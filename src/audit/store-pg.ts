import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteAuditStore, type AuditStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL AuditStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgAuditStore(_h: PgDatabase): AuditStore {
  throw new Error('AuditStore on PostgreSQL is not written yet');
}

/** The AuditStore on the database's dialect. */
export const auditStoreOn = (database: Database): AuditStore => onDialect(database, { sqlite: createSqliteAuditStore, postgres: createPgAuditStore });
