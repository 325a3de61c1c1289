import type pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import type { Clock, IdFactory } from '../clock.ts';
import { leaseSql, numbered, PG_NOW_MS, PG_SKIP_LOCKED } from './lease-store.ts';
import type { EnqueueJob, JobQueue, JobRow as Row } from './store.ts';

/**
 * The job table on PostgreSQL: the same contract as ./store.ts (test/stores/contracts/jobs.ts),
 * for several processes on one database. Claims lock the rows they pick and skip rows another
 * claimer holds (`FOR UPDATE SKIP LOCKED`); every later change names the lease owner in its
 * WHERE (a conditional UPDATE, never a read then a write). Leases, due times, retries and
 * rechecks are timed by the database's clock, so processes whose clocks disagree agree on
 * what is due and which lease ran out. Every statement is a named query: prepared once per
 * connection.
 */

type On = pg.Pool | pg.PoolClient;

const NOW = PG_NOW_MS;
const UNFINISHED = `status IN ('queued', 'running', 'waiting')`;
const lease = leaseSql({ table: 'jobs', id: 'id', owner: 'lease_owner', until: 'lease_until', skipLocked: PG_SKIP_LOCKED, clock: NOW });

/** The statements other PostgreSQL stores run inside their own transactions (`on` is their client). */
const insert = statement(
  'jobs.insert',
  `INSERT INTO jobs (id, kind, resource_id, user_id, status, attempts, max_attempts, run_at, created_at, updated_at)
   VALUES ($1, $2, $3, $4, 'queued', 0, $5, coalesce($6::bigint, ${NOW}), $7, $7)`,
);
const cancel = statement(
  'jobs.cancel_for',
  `UPDATE jobs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, waiting_on = NULL, updated_at = $1
   WHERE resource_id = $2 AND ${UNFINISHED}`,
);
const waitOn = statement('jobs.wait_on', `UPDATE jobs SET waiting_on = $1, updated_at = $2 WHERE id = $3`);
// A wake clears waiting_on; a parked job becomes due now, a job not yet parked parks as due (see park).
const wake = statement(
  'jobs.wake',
  `UPDATE jobs SET waiting_on = NULL, run_at = ${NOW}, updated_at = $1,
     status = CASE WHEN status = 'waiting' THEN 'queued' ELSE status END
   WHERE id = $2 AND waiting_on = $3`,
);

/**
 * Queues a job on `on`: a client inside the caller's transaction (a resource and its job
 * commit together) or the pool. Due at `runAt`, or at once by the database's clock; `now` is
 * the creation time the caller records (its rows' clock).
 */
export async function insertJob(on: On, input: EnqueueJob & { id: string; now: number }): Promise<void> {
  await insert(on, [input.id, input.kind, input.resourceId, input.userId, input.maxAttempts, input.runAt ?? null, input.now]);
}

/** The PostgreSQL twin of `jobStatements` (./store.ts): enqueue, cancel, and the wait/wake pair of a parked job. */
export const pgJobStatements = {
  enqueue: insertJob,
  /** Cancels every unfinished job of a resource; how many. */
  cancelFor: async (on: On, resourceId: string, now: number): Promise<number> => (await cancel(on, [now, resourceId])).rowCount ?? 0,
  /** The job now waits on `key` (a compute task id). */
  waitOn: async (on: On, jobId: string, key: string, now: number): Promise<void> => void (await waitOn(on, [key, now, jobId])),
  /** What `key` names has ended: the job that waits on it is due now. */
  wake: async (on: On, jobId: string, key: string, now: number): Promise<boolean> => ((await wake(on, [now, jobId, key])).rowCount ?? 0) > 0,
};

/** enqueueOnce's lock space (pg_advisory_xact_lock's two-key form; 'jobs' as bytes): one lock per kind and resource. */
const ONCE_LOCK = 0x6a6f6273;

const claim = statement(
  'jobs.claim',
  numbered(
    lease.claim({
      set: `status = 'running', attempts = attempts + 1, updated_at = ${NOW}`,
      claimable: `(status IN ('queued', 'waiting') AND run_at <= ${NOW}) OR (status = 'running' AND lease_until < ${NOW})`,
      order: 'run_at, created_at, id',
    }),
  ),
);
const renew = statement('jobs.renew', numbered(lease.renew({ set: `updated_at = ${NOW}`, where: `status = 'running'` })));
const complete = statement('jobs.complete', numbered(lease.finish({ set: `status = 'done', updated_at = ${NOW}`, where: `status = 'running'` })));
const failFinal = statement('jobs.fail', numbered(lease.finish({ set: `status = 'failed', last_error = ?, updated_at = ${NOW}`, where: `status = 'running'` })));
const retry = statement(
  'jobs.retry',
  numbered(lease.finish({ set: `status = 'queued', last_error = ?, run_at = ${NOW} + ?::bigint, updated_at = ${NOW}`, where: `status = 'running'` })),
);
const uncount = `attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END`;
const release = statement('jobs.release', numbered(lease.finish({ set: `status = 'queued', ${uncount}, updated_at = ${NOW}`, where: `status = 'running'` })));
const park = statement(
  'jobs.park',
  numbered(
    lease.finish({
      set: `${uncount}, updated_at = ${NOW},
        status = CASE WHEN waiting_on IS NULL THEN 'queued' ELSE 'waiting' END,
        run_at = CASE WHEN waiting_on IS NULL THEN ${NOW} ELSE ${NOW} + ?::bigint END`,
      where: `status = 'running'`,
    }) + ' RETURNING status',
  ),
);
const running = statement('jobs.running', `SELECT id, lease_owner FROM jobs WHERE status = 'running'`);
const releaseById = statement('jobs.release_orphan', numbered(lease.finish({ set: `status = 'queued', updated_at = ${NOW}`, where: `status = 'running'` })));
const byId = statement('jobs.by_id', `SELECT * FROM jobs WHERE id = $1`);
const onceLock = statement('jobs.once_lock', `SELECT pg_advisory_xact_lock(${ONCE_LOCK}, hashtext($1::text || ' ' || $2::text))`);
const insertOnce = statement(
  'jobs.insert_once',
  `INSERT INTO jobs (id, kind, resource_id, user_id, status, attempts, max_attempts, run_at, created_at, updated_at)
   SELECT $1::text, $2::text, $3::text, $4::text, 'queued', 0, $5::bigint, coalesce($6::bigint, ${NOW}), $7::bigint, $7::bigint
   WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = $2::text AND resource_id = $3::text AND ${UNFINISHED})`,
);
const unfinished = statement('jobs.unfinished', `SELECT id FROM jobs WHERE kind = $1 AND resource_id = $2 AND ${UNFINISHED} ORDER BY created_at LIMIT 1`);

const changed = (res: pg.QueryResult) => (res.rowCount ?? 0) > 0;

export function createPgJobStore(h: PgDatabase, clock: Clock, newId: IdFactory): JobQueue {
  const { pool } = h;
  return {
    async enqueue(input) {
      const id = newId('job');
      await insertJob(pool, { ...input, id, now: clock.now() });
      return id;
    },
    async enqueueOnce(input) {
      // Two READ COMMITTED inserts would both see no unfinished job: a lock per (kind, resource)
      // orders them, and the second one's NOT EXISTS sees the first one's row.
      return withTx(pool, async (c) => {
        await onceLock(c, [input.kind, input.resourceId]);
        const id = newId('job');
        const res = await insertOnce(c, [id, input.kind, input.resourceId, input.userId, input.maxAttempts, input.runAt ?? null, clock.now()]);
        if (changed(res)) return id;
        return (await unfinished<{ id: string }>(c, [input.kind, input.resourceId])).rows[0]!.id;
      });
    },
    hasUnfinished: async (kind, resourceId) => (await unfinished(pool, [kind, resourceId])).rows.length > 0,
    async cancelFor(resourceId) {
      await pgJobStatements.cancelFor(pool, resourceId, clock.now());
    },
    async claim(owner, leaseMs) {
      const row = (await claim<Row>(pool, [owner, leaseMs, 1])).rows[0];
      return row
        ? { id: row.id, kind: row.kind, resourceId: row.resource_id, userId: row.user_id, attempts: row.attempts, maxAttempts: row.max_attempts, leaseOwner: owner }
        : null;
    },
    renew: async (jobId, owner, leaseMs) => changed(await renew(pool, [leaseMs, jobId, owner])),
    complete: async (jobId, owner) => changed(await complete(pool, [jobId, owner])),
    async fail(jobId, owner, error, retryInMs) {
      if (retryInMs === undefined) return changed(await failFinal(pool, [error, jobId, owner]));
      return changed(await retry(pool, [error, retryInMs, jobId, owner]));
    },
    release: async (jobId, owner) => changed(await release(pool, [jobId, owner])),
    park: async (jobId, owner, recheckInMs) => (await park<{ status: 'waiting' | 'queued' }>(pool, [recheckInMs, jobId, owner])).rows[0]?.status ?? null,
    async releaseOrphans(isAlive) {
      let n = 0;
      for (const job of (await running<{ id: string; lease_owner: string }>(pool)).rows) {
        if (!isAlive(job.lease_owner)) n += (await releaseById(pool, [job.id, job.lease_owner])).rowCount ?? 0;
      }
      return n;
    },
    async get(jobId) {
      const r = (await byId<Row>(pool, [jobId])).rows[0];
      return r
        ? { id: r.id, kind: r.kind, status: r.status, attempts: r.attempts, runAt: r.run_at, waitingOn: r.waiting_on, leaseOwner: r.lease_owner, lastError: r.last_error }
        : undefined;
    },
  };
}
