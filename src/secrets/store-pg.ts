import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteSecretStore, type SecretStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL SecretStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgSecretStore(_h: PgDatabase): SecretStore {
  throw new Error('SecretStore on PostgreSQL is not written yet');
}

/** The SecretStore on the database's dialect. */
export const secretStoreOn = (database: Database): SecretStore => onDialect(database, { sqlite: createSqliteSecretStore, postgres: createPgSecretStore });
