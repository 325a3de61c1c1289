import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';

/**
 * Any synchronous (better-sqlite3) drizzle database whose schema includes the webhook
 * tables: the app's `Db`, or a test database holding only these tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WebhookDb = BaseSQLiteDatabase<'sync', any, any>;
