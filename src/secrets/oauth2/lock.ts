import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * A lease lock on one `secrets` row, shared by every process that opens the database.
 * A lease rather than a plain flag: a process that dies while holding it cannot block the
 * secret for longer than `leaseMs`. Both statements are single UPDATEs, so SQLite's write
 * lock makes them atomic across processes without a transaction.
 */

/** Unique per process and per call, so one process's two refreshes never share a lock. */
export function newLockOwner(): string {
  return `${process.pid}.${randomBytes(8).toString('hex')}`;
}

export function tryLock(sqlite: Database.Database, secretId: string, owner: string, now: number, leaseMs: number): boolean {
  const result = sqlite
    .prepare('UPDATE secrets SET lock_owner = ?, lock_until = ? WHERE id = ? AND (lock_until IS NULL OR lock_until <= ?)')
    .run(owner, now + leaseMs, secretId, now);
  return result.changes === 1;
}

/** Releases only our own lease: after it expired and someone else took it, theirs stays. */
export function unlock(sqlite: Database.Database, secretId: string, owner: string): void {
  sqlite.prepare('UPDATE secrets SET lock_owner = NULL, lock_until = NULL WHERE id = ? AND lock_owner = ?').run(secretId, owner);
}
