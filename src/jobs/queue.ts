import type Database from 'better-sqlite3';
import type { Clock, IdFactory } from '../clock.ts';

/**
 * A durable job queue in SQLite. A job is claimed by setting a lease; the worker renews it
 * while it works. A worker that dies (SIGKILL, power loss) stops renewing, its lease runs
 * out, and the job is claimed again. Everything here is synchronous SQL: callers may run it
 * inside their own transactions (better-sqlite3 transactions must not await).
 */

export interface Job {
  id: string;
  kind: string;
  resourceId: string;
  userId: string;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string;
}

export interface JobQueue {
  enqueue(input: { kind: string; resourceId: string; userId: string; maxAttempts: number; runAt?: number }): string;
  /** Atomically claims the next due job (queued, or running with an expired lease). */
  claim(owner: string, leaseMs: number): Job | null;
  /** Extends the lease; false when the job is no longer ours (cancelled, or reclaimed). */
  renew(jobId: string, owner: string, leaseMs: number): boolean;
  complete(jobId: string, owner: string): void;
  /** Gives the job up; `retryInMs` requeues it after that delay, otherwise it is failed for good. */
  fail(jobId: string, owner: string, error: string, retryInMs?: number): void;
  /** Puts a job back without counting the attempt (graceful shutdown). */
  release(jobId: string, owner: string): void;
  /** Releases jobs leased by processes of this host that no longer exist. */
  releaseOrphans(isAlive: (owner: string) => boolean): number;
  cancelFor(resourceId: string): void;
}

interface Row {
  id: string;
  kind: string;
  resource_id: string;
  user_id: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string;
}

export function createJobQueue(sqlite: Database.Database, clock: Clock, newId: IdFactory): JobQueue {
  const insert = sqlite.prepare(
    `INSERT INTO jobs (id, kind, resource_id, user_id, status, attempts, max_attempts, run_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?)`,
  );
  // One statement: the sub-select and the update run under SQLite's write lock, so two
  // processes can never claim the same job.
  const claim = sqlite.prepare<[string, number, number, number, number], Row>(
    `UPDATE jobs SET status = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
     WHERE id = (
       SELECT id FROM jobs
       WHERE (status = 'queued' AND run_at <= ?) OR (status = 'running' AND lease_until < ?)
       ORDER BY run_at, created_at LIMIT 1
     )
     RETURNING id, kind, resource_id, user_id, attempts, max_attempts, lease_owner`,
  );
  const renew = sqlite.prepare(
    `UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND status = 'running'`,
  );
  const complete = sqlite.prepare(
    `UPDATE jobs SET status = 'done', lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ? AND lease_owner = ?`,
  );
  const failFinal = sqlite.prepare(
    `UPDATE jobs SET status = 'failed', last_error = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ?`,
  );
  const retry = sqlite.prepare(
    `UPDATE jobs SET status = 'queued', last_error = ?, run_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ?`,
  );
  const release = sqlite.prepare(
    `UPDATE jobs SET status = 'queued', attempts = MAX(attempts - 1, 0), lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ? AND status = 'running'`,
  );
  const running = sqlite.prepare<[], { id: string; lease_owner: string }>(
    `SELECT id, lease_owner FROM jobs WHERE status = 'running'`,
  );
  const releaseById = sqlite.prepare(
    `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ? AND lease_owner = ?`,
  );
  const cancel = sqlite.prepare(
    `UPDATE jobs SET status = 'cancelled', updated_at = ? WHERE resource_id = ? AND status IN ('queued', 'running')`,
  );

  return {
    enqueue({ kind, resourceId, userId, maxAttempts, runAt }) {
      const now = clock.now();
      const id = newId('job');
      insert.run(id, kind, resourceId, userId, maxAttempts, runAt ?? now, now, now);
      return id;
    },
    claim(owner, leaseMs) {
      const now = clock.now();
      const row = claim.get(owner, now + leaseMs, now, now, now);
      return row
        ? {
            id: row.id,
            kind: row.kind,
            resourceId: row.resource_id,
            userId: row.user_id,
            attempts: row.attempts,
            maxAttempts: row.max_attempts,
            leaseOwner: row.lease_owner,
          }
        : null;
    },
    renew(jobId, owner, leaseMs) {
      const now = clock.now();
      return renew.run(now + leaseMs, now, jobId, owner).changes > 0;
    },
    complete(jobId, owner) {
      complete.run(clock.now(), jobId, owner);
    },
    fail(jobId, owner, error, retryInMs) {
      const now = clock.now();
      if (retryInMs === undefined) failFinal.run(error, now, jobId, owner);
      else retry.run(error, now + retryInMs, now, jobId, owner);
    },
    release(jobId, owner) {
      release.run(clock.now(), jobId, owner);
    },
    releaseOrphans(isAlive) {
      let n = 0;
      for (const job of running.all()) {
        if (!isAlive(job.lease_owner)) n += releaseById.run(clock.now(), job.id, job.lease_owner).changes;
      }
      return n;
    },
    cancelFor(resourceId) {
      cancel.run(clock.now(), resourceId);
    },
  };
}
