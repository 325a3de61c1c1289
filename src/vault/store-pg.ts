import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteVaultStore, type VaultStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL VaultStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgVaultStore(_h: PgDatabase): VaultStore {
  throw new Error('VaultStore on PostgreSQL is not written yet');
}

/** The VaultStore on the database's dialect. */
export const vaultStoreOn = (database: Database): VaultStore => onDialect(database, { sqlite: createSqliteVaultStore, postgres: createPgVaultStore });
