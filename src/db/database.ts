import { openStore, type Store } from './client.ts';
import { openPgDatabase, type PgDatabase, type PgSettings } from './pg/database.ts';

export type { Store, PgDatabase };
/** Today's SQLite handle (src/db/client.ts). */
export type SqliteDatabase = Store;

/**
 * The database under every store: embedded SQLite (the default), or PostgreSQL when
 * MIMIC_DATABASE_URL is set. Store modules take a `Database` and pick their factory with
 * `onDialect`; domain code never sees it.
 */
export type Database = SqliteDatabase | PgDatabase;

/** What `openDatabase` needs of the configuration. */
export interface DatabaseSettings {
  databaseFile: string;
  /** PostgreSQL's pool settings and URL, or null for SQLite. */
  database: PgSettings | null;
}

/** SQLite opens (and migrates) at once; PostgreSQL connects lazily and migrates in `databaseReady`. */
export function openDatabase(config: DatabaseSettings): Database {
  return config.database ? openPgDatabase(config.database) : openStore(config.databaseFile);
}

/** Migrations applied and change notices listened to (PostgreSQL); SQLite is ready once open. */
export async function databaseReady(database: Database): Promise<void> {
  if (database.dialect === 'postgres') await database.ready();
}

/** Opens the database and waits until it is ready: what an operator command works on. */
export async function openReadyDatabase(config: DatabaseSettings): Promise<Database> {
  const database = openDatabase(config);
  try {
    await databaseReady(database);
  } catch (err) {
    await closeDatabase(database);
    throw err;
  }
  return database;
}

export async function closeDatabase(database: Database): Promise<void> {
  await database.close();
}

/** The store factory for the database's dialect. */
export function onDialect<T>(database: Database, make: { sqlite: (h: SqliteDatabase) => T; postgres: (h: PgDatabase) => T }): T {
  return database.dialect === 'postgres' ? make.postgres(database) : make.sqlite(database);
}
