import type { Db } from './client.ts';

/**
 * Statements of the hot paths (a tool call, an API-key check) prepared once per database
 * handle: drizzle otherwise rebuilds the SQL text and better-sqlite3 re-prepares it on every
 * query, which was a fifth of a tool call's CPU time.
 */
const cache = new WeakMap<Db, Map<string, unknown>>();

export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let forDb = cache.get(db);
  if (!forDb) cache.set(db, (forDb = new Map()));
  let statement = forDb.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    forDb.set(name, statement);
  }
  return statement;
}
