import type { PgDatabase } from './pg/database.ts';
import { createDataMigrationStore, type DataMigrationStore } from './data-migrations.ts';
import { onDialect, type Database } from './database.ts';

/** The PostgreSQL DataMigrationStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgDataMigrationStore(_h: PgDatabase): DataMigrationStore {
  throw new Error('DataMigrationStore on PostgreSQL is not written yet');
}

/** The DataMigrationStore on the database's dialect. */
export const dataMigrationStoreOn = (database: Database): DataMigrationStore => onDialect(database, { sqlite: createDataMigrationStore, postgres: createPgDataMigrationStore });
