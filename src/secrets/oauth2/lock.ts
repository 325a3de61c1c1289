import { randomBytes } from 'node:crypto';
import type { SqliteHandle } from '../../jobs/lock-store.ts';
import { secretsLock } from '../lock-store.ts';

export type { SqliteHandle };

/**
 * A lease lock on one `secrets` row, shared by every process that opens the database: the
 * one lease mechanism of src/jobs/lease-store.ts (README there). A lease rather than a plain
 * flag: a process that dies while holding it cannot block the secret for longer than
 * `leaseMs`. Taking and releasing are single conditional UPDATEs.
 */

/** Unique per process and per call, so one process's two refreshes never share a lock. */
export function newLockOwner(): string {
  return `${process.pid}.${randomBytes(8).toString('hex')}`;
}

export function tryLock(sqlite: SqliteHandle, secretId: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
  return secretsLock(sqlite).take(secretId, owner, now, leaseMs);
}

/** Releases only our own lease: after it expired and someone else took it, theirs stays. */
export function unlock(sqlite: SqliteHandle, secretId: string, owner: string): Promise<void> {
  return secretsLock(sqlite).release(secretId, owner);
}
