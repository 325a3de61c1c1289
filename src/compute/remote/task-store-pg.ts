import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { PgDatabase } from '../../db/pg/database.ts';
import { statement, withTx } from '../../db/pg/tx.ts';
import type { Clock, IdFactory } from '../../clock.ts';
import { leaseSql, numbered, PG_NOW_MS, PG_SKIP_LOCKED } from '../../jobs/lease-store.ts';
import { pgJobStatements as jobs } from '../../jobs/store-pg.ts';
import { DEFAULT_TASK_KIND } from '../tasks/task.ts';
import { taskSignals, type ComputeTasks, type ComputeTasksOptions, type Conflict, type TaskRow, type TaskStatus } from './task-store.ts';

/**
 * The task table of the remote backend on PostgreSQL: the same contract as ./task-store.ts,
 * for several API processes on one database. Claims lock what they pick (`FOR UPDATE SKIP
 * LOCKED`); every change a worker asks for is one conditional UPDATE naming the lease; the
 * task's times (leases above all) come from the database's clock, so API processes with
 * skewed clocks agree on which lease ran out. A task that ends wakes its parked job in the
 * same transaction. News of a queued or changed task reaches the other processes as change
 * notices (src/db/pg/changes.ts), so a worker's long-polling claim in one process hears of a
 * task created in another at once.
 */

const NOW = PG_NOW_MS;
const LIVE = `status IN ('queued', 'leased')`;
const lease = leaseSql({ table: 'compute_tasks', id: 'id', owner: 'lease', until: 'lease_until', skipLocked: PG_SKIP_LOCKED, clock: NOW });
/** Fragment, params: lease. */
const LEASE_IS_LIVE = `status = 'leased' AND lease = ? AND lease_until > ${NOW}`;
/** A change that ended the task answers its job and status. */
const ENDED = ' RETURNING job_id, status';

const cancelJob = statement(
  'compute_tasks.cancel_job',
  `UPDATE compute_tasks SET status = 'cancelled', error = 'superseded by a newer task of the job', finished_at = ${NOW}, updated_at = ${NOW}
   WHERE job_id = $1 AND ${LIVE} RETURNING id`,
);
const insert = statement(
  'compute_tasks.insert',
  `INSERT INTO compute_tasks (id, job_id, kind, status, request, output_path, attempts, max_attempts, created_at, updated_at)
   VALUES ($1, $2, $3, 'queued', $4, $5, 0, $6, ${NOW}, ${NOW})`,
);
const byId = statement('compute_tasks.by_id', `SELECT * FROM compute_tasks WHERE id = $1`);
const latest = statement('compute_tasks.latest', `SELECT * FROM compute_tasks WHERE job_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`);
const claim = statement(
  'compute_tasks.claim',
  numbered(
    lease.claim({
      set: `status = 'leased', worker_id = ?, worker_name = ?, attempts = attempts + 1, progress_done = NULL, progress_total = NULL, claimed_at = ${NOW}, updated_at = ${NOW}`,
      claimable: `kind = ANY(?::text[]) AND (status = 'queued' OR (status = 'leased' AND lease_until <= ${NOW} AND attempts < max_attempts))`,
      order: 'created_at, id',
    }),
  ),
);
const release = statement(
  'compute_tasks.release',
  numbered(lease.finish({ set: `status = 'queued', attempts = attempts - 1, updated_at = ${NOW}`, where: `status = 'leased'` })),
);
const heartbeat = statement(
  'compute_tasks.heartbeat',
  numbered(
    lease.renew({
      set: `progress_done = coalesce(?::bigint, progress_done), progress_total = coalesce(?::bigint, progress_total), updated_at = ${NOW}`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ${NOW}`,
    }) + ' RETURNING lease_until, job_id',
  ),
);
const current = statement('compute_tasks.current', numbered(`SELECT * FROM compute_tasks WHERE id = ? AND ${LEASE_IS_LIVE}`));
const uploaded = statement(
  'compute_tasks.uploaded',
  numbered(`UPDATE compute_tasks SET uploaded_lease = ?, result_bytes = ?, uploaded_at = ${NOW}, updated_at = ${NOW} WHERE id = ? AND ${LEASE_IS_LIVE}`),
);
// Done and failed keep the lease value: a repeated completion of the same lease is recognised by it.
const complete = statement(
  'compute_tasks.complete',
  numbered(
    lease.finish({
      keepOwner: true,
      set: `status = 'done', metadata = ?, face_ids = ?, render_ms = ?::bigint, finished_at = ${NOW}, updated_at = ${NOW}`,
      where: `worker_id = ? AND uploaded_lease = lease AND status = 'leased' AND lease_until > ${NOW}`,
    }) + ENDED,
  ),
);
const failInput = statement(
  'compute_tasks.fail_input',
  numbered(
    lease.finish({
      keepOwner: true,
      set: `status = 'failed', error_kind = ?, error = ?, finished_at = ${NOW}, updated_at = ${NOW}`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ${NOW}`,
    }) + ENDED,
  ),
);
const failWorker = statement(
  'compute_tasks.fail_worker',
  numbered(
    lease.finish({
      set: `status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
         finished_at = CASE WHEN attempts >= max_attempts THEN ${NOW} ELSE NULL END,
         error_kind = NULL, error = ?, updated_at = ${NOW}`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ${NOW}`,
    }) + ENDED,
  ),
);
const cancel = statement(
  'compute_tasks.cancel',
  `UPDATE compute_tasks SET status = 'cancelled', error = $1, lease_until = NULL, finished_at = ${NOW}, updated_at = ${NOW} WHERE id = $2 AND ${LIVE}`,
);
const cancelResource = statement(
  'compute_tasks.cancel_resource',
  `UPDATE compute_tasks SET status = 'cancelled', error = 'the animation was deleted', lease_until = NULL, finished_at = ${NOW}, updated_at = ${NOW}
   WHERE ${LIVE} AND job_id IN (SELECT id FROM jobs WHERE resource_id = $1) RETURNING id`,
);
const expire = statement(
  'compute_tasks.expire',
  `UPDATE compute_tasks SET status = 'failed', error = 'the lease of the last allowed attempt ran out', lease_until = NULL,
     finished_at = ${NOW}, updated_at = ${NOW}
   WHERE id = $1 AND status = 'leased' AND lease_until <= ${NOW} AND attempts >= max_attempts${ENDED}`,
);
const report = statement(
  'compute_tasks.report',
  `UPDATE compute_tasks SET reported_at = ${NOW}, updated_at = ${NOW} WHERE id = $1 AND status = 'failed' AND reported_at IS NULL`,
);
/** The row and whether its lease is live by the database's clock: why a refused call was refused. */
const conflict = statement(
  'compute_tasks.conflict',
  `SELECT status, lease, worker_id, uploaded_lease, coalesce(lease_until > ${NOW}, false) AS live FROM compute_tasks WHERE id = $1`,
);
/** A row lock the task's ending waits for: a watch and an ending never miss each other. */
const lockTask = statement('compute_tasks.lock', `SELECT job_id, status FROM compute_tasks WHERE id = $1 FOR SHARE`);

const QUEUED = 'compute.queued';
const CHANGED = 'compute.task';
const isLive = (status: TaskStatus) => status === 'queued' || status === 'leased';
const count = (res: pg.QueryResult) => res.rowCount ?? 0;

export function createPgComputeTasks(h: PgDatabase, clock: Clock, newId: IdFactory, opts: ComputeTasksOptions): ComputeTasks {
  const { pool } = h;
  const signals = taskSignals();
  // Notices from this process are told here at once; the ones that come back carry its origin and are skipped.
  const origin = randomBytes(6).toString('hex');
  const tell = (topic: string, data: string) => void h.changes.announce(topic, `${origin} ${data}`).catch(() => {});
  const heard = (data: string, emit: (rest: string) => void) => {
    const space = data.indexOf(' ');
    if (space > 0 && data.slice(0, space) !== origin) emit(data.slice(space + 1));
  };
  h.changes.on(QUEUED, (data) => heard(data, signals.emitQueued));
  h.changes.on(CHANGED, (data) => heard(data, signals.emitChanged));
  const changed = (ids: Iterable<string>) => {
    const list = [...ids];
    signals.changed(list);
    list.forEach((id) => tell(CHANGED, id));
  };
  const queued = () => {
    signals.queued();
    tell(QUEUED, '-');
  };

  /** Runs a state change and, when it ended the task, wakes its job: one transaction. The changed row's status, or null. */
  const ending = (taskId: string, change: (c: pg.PoolClient) => Promise<pg.QueryResult<{ job_id: string; status: TaskStatus }>>) =>
    withTx(pool, async (c) => {
      const row = (await change(c)).rows[0];
      if (!row) return null;
      if (!isLive(row.status)) await jobs.wake(c, row.job_id, taskId, clock.now());
      return row.status;
    });

  async function conflictOf(taskId: string, leaseValue: string, workerId: string): Promise<Conflict> {
    const row = (await conflict<{ status: TaskStatus; lease: string | null; worker_id: string | null; uploaded_lease: string | null; live: boolean }>(pool, [taskId])).rows[0];
    if (!row) return 'not_found';
    if (row.status === 'cancelled' || row.status === 'failed') return 'cancelled';
    const mine = row.status === 'leased' && row.lease === leaseValue && row.worker_id === workerId && row.live;
    return mine && row.uploaded_lease !== leaseValue ? 'result_missing' : 'lease_lost';
  }

  const rowOf = async (on: pg.Pool | pg.PoolClient, taskId: string) => (await byId<TaskRow>(on, [taskId])).rows[0] ?? null;

  return {
    leaseMs: opts.leaseMs,
    async create(input) {
      const { row, superseded } = await withTx(pool, async (c) => {
        const superseded = (await cancelJob<{ id: string }>(c, [input.jobId])).rows.map((r) => r.id);
        const id = newId('ctk');
        await insert(c, [id, input.jobId, input.kind ?? DEFAULT_TASK_KIND, JSON.stringify(input.request), input.outputPath, opts.maxAttempts]);
        await jobs.waitOn(c, input.jobId, id, clock.now());
        return { row: (await rowOf(c, id))!, superseded };
      });
      changed(superseded);
      queued();
      return row;
    },
    async claim(worker, kinds = [DEFAULT_TASK_KIND]) {
      if (signals.stopped || kinds.length === 0) return null;
      const leaseValue = `lse_${randomBytes(16).toString('base64url')}`;
      const row = (await claim<TaskRow>(pool, [leaseValue, opts.leaseMs, worker.id, worker.label, [...kinds], 1])).rows[0] ?? null;
      if (row) changed([row.id]);
      return row;
    },
    async release(taskId, leaseValue) {
      if (count(await release(pool, [taskId, leaseValue])) > 0) {
        changed([taskId]);
        queued();
      }
    },
    async heartbeat(taskId, leaseValue, workerId, progress) {
      const res = await heartbeat<{ lease_until: number; job_id: string }>(pool, [opts.leaseMs, progress?.done ?? null, progress?.total ?? null, taskId, leaseValue, workerId]);
      const row = res.rows[0];
      if (!row) return conflictOf(taskId, leaseValue, workerId);
      if (progress) {
        // The parked job relays progress to its resource: news wakes it (it waits again at once).
        await jobs.wake(pool, row.job_id, taskId, clock.now());
        changed([taskId]);
      }
      return { leaseUntil: row.lease_until };
    },
    current: async (taskId, leaseValue) => (await current<TaskRow>(pool, [taskId, leaseValue])).rows[0] ?? null,
    recordUpload: async (taskId, leaseValue, bytes) => count(await uploaded(pool, [leaseValue, bytes, taskId, leaseValue])) > 0,
    async complete(taskId, leaseValue, workerId, result) {
      const done = await ending(taskId, (c) =>
        complete(c, [JSON.stringify(result.metadata), JSON.stringify(result.faceIds), result.renderMs, taskId, leaseValue, workerId]),
      );
      if (done) {
        changed([taskId]);
        return 'done';
      }
      // A repeated completion of the same lease (its answer was lost) is answered as the first was.
      const row = await rowOf(pool, taskId);
      if (row?.status === 'done' && row.lease === leaseValue && row.worker_id === workerId) return 'done';
      return conflictOf(taskId, leaseValue, workerId);
    },
    async fail(taskId, leaseValue, workerId, kind, description) {
      const status = kind
        ? await ending(taskId, (c) => failInput(c, [kind, description, taskId, leaseValue, workerId]))
        : await ending(taskId, (c) => failWorker(c, [description, taskId, leaseValue, workerId]));
      if (status !== 'failed' && status !== 'queued') return conflictOf(taskId, leaseValue, workerId);
      changed([taskId]);
      if (status === 'queued') queued();
      return status;
    },
    async cancel(taskId, reason) {
      const done = count(await cancel(pool, [reason, taskId])) > 0;
      if (done) changed([taskId]);
      return done;
    },
    async cancelForResource(resourceId) {
      changed((await cancelResource<{ id: string }>(pool, [resourceId])).rows.map((r) => r.id));
    },
    async expireIfExhausted(taskId) {
      const done = (await ending(taskId, (c) => expire(c, [taskId]))) !== null;
      if (done) changed([taskId]);
      return done;
    },
    get: (taskId) => rowOf(pool, taskId),
    latestOfJob: async (jobId) => (await latest<TaskRow>(pool, [jobId])).rows[0] ?? null,
    watch: (taskId) =>
      withTx(pool, async (c) => {
        // The share lock waits for an ending in flight (and an ending waits for us): the job never waits on a task that has ended.
        const row = (await lockTask<{ job_id: string; status: TaskStatus }>(c, [taskId])).rows[0];
        if (!row || !isLive(row.status)) return false;
        await jobs.waitOn(c, row.job_id, taskId, clock.now());
        return true;
      }),
    takeFailure: async (taskId) => count(await report(pool, [taskId])) > 0,
    ...signals.listen,
    get claimsStopped() {
      return signals.stopped;
    },
  };
}
