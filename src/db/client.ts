import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema>;

export interface Store {
  readonly dialect: 'sqlite';
  /** Raw handle: for transactions (`sqlite.transaction`) and pragmas only. */
  sqlite: Database.Database;
  db: Db;
  close(): void;
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Opens the SQLite file in WAL mode and applies pending migrations. Several processes
 * (the server, CLI commands, remote workers) may open the same file at once: WAL plus a
 * busy timeout lets them take turns instead of failing with SQLITE_BUSY.
 */
export function openStore(file: string): Store {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { dialect: 'sqlite', sqlite, db, close: () => sqlite.close() };
}

/**
 * Opens an existing SQLite file to read only: nothing is created, migrated or written (what a
 * check command may do). The file must exist and carry the tables the reader asks for.
 */
export function openStoreToRead(file: string): Store {
  // Not `readonly: true`: a read-only connection to a WAL database leaves its -wal and -shm
  // files behind when it closes; query_only refuses every write and lets the last one out tidy up.
  const sqlite = new Database(file, { fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('query_only = ON');
  const db = drizzle(sqlite, { schema });
  return { dialect: 'sqlite', sqlite, db, close: () => sqlite.close() };
}
