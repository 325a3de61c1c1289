import type Database from 'better-sqlite3';
import type { Clock, IdFactory } from '../clock.ts';
import type { Store } from '../db/client.ts';
import { leaseSql, SQLITE_SKIP_LOCKED } from './lease-store.ts';

/**
 * The durable job table. A job is claimed with a lease (src/jobs/lease-store.ts); the runner
 * renews it while it works, and a runner that dies (SIGKILL, power loss) stops renewing, so
 * its lease runs out and the job is claimed again. A job may also park (`waiting`) on a
 * compute task: it holds no lease and no runner slot until the task ends or its recheck
 * time comes (src/jobs/README.md).
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

export interface EnqueueJob {
  kind: string;
  resourceId: string;
  userId: string;
  maxAttempts: number;
  runAt?: number;
}

export type JobStatus = 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'cancelled';

export interface JobView {
  id: string;
  kind: string;
  status: JobStatus;
  attempts: number;
  runAt: number;
  waitingOn: string | null;
  leaseOwner: string | null;
  lastError: string | null;
}

export interface JobQueue {
  /**
   * Queues a job. On SQLite the insert runs before this returns (synchronously), so it joins
   * the caller's open transaction: a resource row and its job commit together. (A PostgreSQL
   * store module that owns such a transaction inserts with `insertJob` of ./store-pg.ts on its
   * own client; SQLite ones call `jobStatements`.)
   */
  enqueue(input: EnqueueJob): Promise<string>;
  /**
   * Queues the job unless one of the same kind for the same resource is unfinished (queued,
   * running or waiting): one conditional insert, so two callers (or two processes) queue it
   * once. The id of the unfinished job, the new one or the one already on its way.
   */
  enqueueOnce(input: EnqueueJob): Promise<string>;
  /** Whether a job of this kind for this resource is unfinished (queued, running or waiting). */
  hasUnfinished(kind: string, resourceId: string): Promise<boolean>;
  /** Cancels every unfinished job of a resource (on SQLite before it returns, like enqueue). */
  cancelFor(resourceId: string): Promise<void>;
  /** Atomically claims the next due job: queued, waiting past its recheck time, or running with an expired lease. */
  claim(owner: string, leaseMs: number): Promise<Job | null>;
  /** Extends the lease; false when the job is no longer ours (cancelled, or reclaimed). */
  renew(jobId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Done, only while we still hold the lease. */
  complete(jobId: string, owner: string): Promise<boolean>;
  /** Gives the job up; `retryInMs` requeues it after that delay, otherwise it is failed for good. */
  fail(jobId: string, owner: string, error: string, retryInMs?: number): Promise<boolean>;
  /** Puts a job back without counting the attempt (graceful shutdown). */
  release(jobId: string, owner: string): Promise<boolean>;
  /**
   * Parks the job on what it waits for (set by `waitOn` in the same store transaction that
   * created the task): no lease, not an attempt, due again after `recheckInMs` or as soon as the
   * awaited thing wakes it. A wake that came before the park makes the job due at once.
   */
  park(jobId: string, owner: string, recheckInMs: number): Promise<'waiting' | 'queued' | null>;
  /** Releases jobs leased by processes of this host that no longer exist. */
  releaseOrphans(isAlive: (owner: string) => boolean): Promise<number>;
  get(jobId: string): Promise<JobView | undefined>;
}

/** A jobs row as both dialects' stores read it. */
export interface JobRow {
  id: string;
  kind: string;
  resource_id: string;
  user_id: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: number;
  waiting_on: string | null;
  lease_owner: string | null;
  last_error: string | null;
}

const lease = leaseSql({ table: 'jobs', id: 'id', owner: 'lease_owner', until: 'lease_until', skipLocked: SQLITE_SKIP_LOCKED });

/**
 * The statements other store modules run inside their own synchronous transactions: enqueue
 * with a resource, cancel with its deletion, and the wait/wake pair of a parked job.
 */
export function jobStatements(sqlite: Database.Database) {
  const insert = sqlite.prepare(
    `INSERT INTO jobs (id, kind, resource_id, user_id, status, attempts, max_attempts, run_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?)`,
  );
  const cancel = sqlite.prepare(
    `UPDATE jobs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, waiting_on = NULL, updated_at = ?
     WHERE resource_id = ? AND status IN ('queued', 'running', 'waiting')`,
  );
  const waitOn = sqlite.prepare(`UPDATE jobs SET waiting_on = ?, updated_at = ? WHERE id = ?`);
  // A wake clears waiting_on; a parked job becomes due now, a job not yet parked parks as due (see park).
  const wake = sqlite.prepare(
    `UPDATE jobs SET waiting_on = NULL, run_at = ?, updated_at = ?,
       status = CASE WHEN status = 'waiting' THEN 'queued' ELSE status END
     WHERE id = ? AND waiting_on = ?`,
  );
  return {
    enqueue(input: EnqueueJob, id: string, now: number): void {
      insert.run(id, input.kind, input.resourceId, input.userId, input.maxAttempts, input.runAt ?? now, now, now);
    },
    cancelFor: (resourceId: string, now: number): number => cancel.run(now, resourceId).changes,
    /** The job now waits on `key` (a compute task id). */
    waitOn: (jobId: string, key: string, now: number): void => void waitOn.run(key, now, jobId),
    /** What `key` names has ended: the job that waits on it is due now. */
    wake: (jobId: string, key: string, now: number): boolean => wake.run(now, now, jobId, key).changes > 0,
  };
}

export function createJobStore(handle: Store, clock: Clock, newId: IdFactory): JobQueue {
  const { sqlite } = handle;
  const tx = jobStatements(sqlite);
  const claim = sqlite.prepare<unknown[], JobRow>(
    lease.claim({
      set: `status = 'running', attempts = attempts + 1, updated_at = ?`,
      claimable: `(status IN ('queued', 'waiting') AND run_at <= ?) OR (status = 'running' AND lease_until < ?)`,
      order: 'run_at, created_at, id',
    }),
  );
  const renew = sqlite.prepare(lease.renew({ set: 'updated_at = ?', where: `status = 'running'` }));
  const complete = sqlite.prepare(lease.finish({ set: `status = 'done', updated_at = ?`, where: `status = 'running'` }));
  const failFinal = sqlite.prepare(lease.finish({ set: `status = 'failed', last_error = ?, updated_at = ?`, where: `status = 'running'` }));
  const retry = sqlite.prepare(lease.finish({ set: `status = 'queued', last_error = ?, run_at = ?, updated_at = ?`, where: `status = 'running'` }));
  const uncount = `attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END`;
  const release = sqlite.prepare(lease.finish({ set: `status = 'queued', ${uncount}, updated_at = ?`, where: `status = 'running'` }));
  const park = sqlite.prepare<unknown[], { status: 'waiting' | 'queued' }>(
    lease.finish({
      set: `${uncount}, updated_at = ?,
        status = CASE WHEN waiting_on IS NULL THEN 'queued' ELSE 'waiting' END,
        run_at = CASE WHEN waiting_on IS NULL THEN ? ELSE ? END`,
      where: `status = 'running'`,
    }) + ' RETURNING status',
  );
  const running = sqlite.prepare<[], { id: string; lease_owner: string }>(`SELECT id, lease_owner FROM jobs WHERE status = 'running'`);
  const releaseById = sqlite.prepare(lease.finish({ set: `status = 'queued', updated_at = ?`, where: `status = 'running'` }));
  const byId = sqlite.prepare<[string], JobRow>(`SELECT * FROM jobs WHERE id = ?`);
  const insertOnce = sqlite.prepare(
    `INSERT INTO jobs (id, kind, resource_id, user_id, status, attempts, max_attempts, run_at, created_at, updated_at)
     SELECT ?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?
     WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = ? AND resource_id = ? AND status IN ('queued', 'running', 'waiting'))`,
  );
  const unfinished = sqlite.prepare<[string, string], { id: string }>(
    `SELECT id FROM jobs WHERE kind = ? AND resource_id = ? AND status IN ('queued', 'running', 'waiting') ORDER BY created_at LIMIT 1`,
  );

  // enqueue, enqueueOnce, hasUnfinished and cancelFor do their statement before returning (not
  // `async`, so nothing is deferred): they run inside a caller's open SQLite transaction.
  return {
    enqueue(input) {
      const id = newId('job');
      tx.enqueue(input, id, clock.now());
      return Promise.resolve(id);
    },
    enqueueOnce(input) {
      // The insert and the look-up run in one transaction: the job found is the one that kept ours out.
      const once = sqlite.transaction(() => {
        const id = newId('job');
        const now = clock.now();
        if (insertOnce.run(id, input.kind, input.resourceId, input.userId, input.maxAttempts, input.runAt ?? now, now, now, input.kind, input.resourceId).changes > 0) return id;
        return unfinished.get(input.kind, input.resourceId)!.id;
      });
      return Promise.resolve(once());
    },
    hasUnfinished: (kind, resourceId) => Promise.resolve(unfinished.get(kind, resourceId) !== undefined),
    cancelFor(resourceId) {
      tx.cancelFor(resourceId, clock.now());
      return Promise.resolve();
    },
    async claim(owner, leaseMs) {
      const now = clock.now();
      const row = claim.get(owner, now + leaseMs, now, now, now, 1);
      return row
        ? { id: row.id, kind: row.kind, resourceId: row.resource_id, userId: row.user_id, attempts: row.attempts, maxAttempts: row.max_attempts, leaseOwner: owner }
        : null;
    },
    async renew(jobId, owner, leaseMs) {
      const now = clock.now();
      return renew.run(now + leaseMs, now, jobId, owner).changes > 0;
    },
    async complete(jobId, owner) {
      return complete.run(clock.now(), jobId, owner).changes > 0;
    },
    async fail(jobId, owner, error, retryInMs) {
      const now = clock.now();
      if (retryInMs === undefined) return failFinal.run(error, now, jobId, owner).changes > 0;
      return retry.run(error, now + retryInMs, now, jobId, owner).changes > 0;
    },
    async release(jobId, owner) {
      return release.run(clock.now(), jobId, owner).changes > 0;
    },
    async park(jobId, owner, recheckInMs) {
      const now = clock.now();
      return park.get(now, now, now + recheckInMs, jobId, owner)?.status ?? null;
    },
    async releaseOrphans(isAlive) {
      let n = 0;
      for (const job of running.all()) {
        if (!isAlive(job.lease_owner)) n += releaseById.run(clock.now(), job.id, job.lease_owner).changes;
      }
      return n;
    },
    async get(jobId) {
      const r = byId.get(jobId);
      return r
        ? { id: r.id, kind: r.kind, status: r.status, attempts: r.attempts, runAt: r.run_at, waitingOn: r.waiting_on, leaseOwner: r.lease_owner, lastError: r.last_error }
        : undefined;
    },
  };
}
