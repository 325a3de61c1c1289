import type { PgDatabase } from '../../db/pg/database.ts';
import { createSqliteClientKeyStore, type ClientKeyStore } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/** The PostgreSQL ClientKeyStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgClientKeyStore(_h: PgDatabase): ClientKeyStore {
  throw new Error('ClientKeyStore on PostgreSQL is not written yet');
}

/** The ClientKeyStore on the database's dialect. */
export const clientKeyStoreOn = (database: Database): ClientKeyStore => onDialect(database, { sqlite: createSqliteClientKeyStore, postgres: createPgClientKeyStore });
