import type Database from 'better-sqlite3';
import { leaseSql, SQLITE_SKIP_LOCKED, type LeaseTable } from './lease-store.ts';

/**
 * A lease lock on one named row (the secrets module's oauth2 refresh lock, say): the lease
 * module's `take` and `finish` on a table whose rows are not queued work. A process that
 * dies holding it blocks the row for `leaseMs` at most; only the owner releases it.
 */
export interface LeaseLock {
  /** True when `owner` now holds the row's lock until now + leaseMs; false when another live owner does, or no such row. */
  take(id: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Releases only our own lease: after it expired and someone else took it, theirs stays. */
  release(id: string, owner: string): Promise<void>;
}

/** The handle a lock is built on (the better-sqlite3 connection of src/db/client.ts). */
export type SqliteHandle = Database.Database;

export function createLeaseLock(sqlite: SqliteHandle, table: Omit<LeaseTable, 'skipLocked'>): LeaseLock {
  const sql = leaseSql({ ...table, skipLocked: SQLITE_SKIP_LOCKED });
  const take = sqlite.prepare(sql.take());
  const release = sqlite.prepare(sql.finish());
  return {
    take: async (id, owner, now, leaseMs) => take.run(owner, now + leaseMs, id, now).changes === 1,
    release: async (id, owner) => void release.run(id, owner),
  };
}
