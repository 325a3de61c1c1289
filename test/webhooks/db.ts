import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { createRequire } from 'node:module';
import { users } from '../../src/db/schema/core.ts';
import * as webhookTables from '../../src/db/schema/webhooks.ts';
import type { WebhookDb } from '../../src/webhooks/db.ts';
import type { Database as AnyDatabase } from '../../src/db/database.ts';

/**
 * A SQLite file holding the users table and the webhook tables, created from the drizzle
 * definitions themselves (drizzle-kit's API generates the DDL), so the tests cannot drift
 * from the schema. The app's openStore() runs the generated migrations instead.
 */
const require = createRequire(import.meta.url);
const kit = require('drizzle-kit/api') as typeof import('drizzle-kit/api');

let ddl: Promise<string[]> | undefined;
function schemaSql(): Promise<string[]> {
  ddl ??= (async () => {
    const empty = await kit.generateSQLiteDrizzleJson({});
    const current = await kit.generateSQLiteDrizzleJson({ users, ...webhookTables });
    return kit.generateSQLiteMigration(empty, current);
  })();
  return ddl;
}

export interface TestStore {
  readonly dialect: 'sqlite';
  sqlite: Database.Database;
  db: WebhookDb;
  close(): void;
}

/** Opens (and on first use creates) the file with the same pragmas as openStore(). */
export async function openTestStore(file: string): Promise<TestStore> {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const exists = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'webhook_messages'").get();
  if (!exists) for (const stmt of await schemaSql()) sqlite.exec(stmt);
  const db = drizzle(sqlite, { schema: { users, ...webhookTables } });
  return { dialect: 'sqlite', sqlite, db, close: () => sqlite.close() };
}

/** The test file as the dispatcher's database (it holds only the tables the webhooks use). */
export const asDatabase = (store: TestStore): AnyDatabase => store as unknown as AnyDatabase;

export function addUser(store: TestStore, id: string): void {
  store.db.insert(users).values({ id, name: id, createdAt: 0 }).run();
}
