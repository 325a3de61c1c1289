import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Clock, IdFactory } from '../../clock.ts';
import type { Store } from '../../db/client.ts';
import { leaseSql, SQLITE_SKIP_LOCKED } from '../../jobs/lease-store.ts';
import { jobStatements } from '../../jobs/store.ts';
import { DEFAULT_TASK_KIND } from '../tasks/task.ts';
import { join } from 'node:path';
import type { RenderMetadata } from '../interface.ts';
import type { TrainMetadata } from '../../schemas/compute.ts';
import type { WorkerIdentity } from './tokens.ts';

/**
 * The task table of the remote backend, and the in-process signals around it.
 *
 * A lease is live while `status = 'leased' AND lease = ? AND lease_until > now` (the lease
 * value is the owner column of src/jobs/lease-store.ts). Every change a worker asks for is
 * ONE conditional UPDATE naming the lease (a compare-and-set), so two API processes on one
 * database can never both accept a claim, an upload or a completion. A task that ends (done,
 * failed) wakes the job parked on it in the same transaction (src/jobs/README.md).
 * Listeners are told after the store call, never inside a transaction.
 */

export type TaskStatus = 'queued' | 'leased' | 'done' | 'failed' | 'cancelled';

export interface TaskRow {
  id: string;
  job_id: string;
  kind: string;
  status: TaskStatus;
  request: string;
  output_path: string;
  attempts: number;
  max_attempts: number;
  lease: string | null;
  lease_until: number | null;
  worker_id: string | null;
  worker_name: string | null;
  progress_done: number | null;
  progress_total: number | null;
  uploaded_lease: string | null;
  result_bytes: number | null;
  metadata: string | null;
  face_ids: string | null;
  error_kind: string | null;
  error: string | null;
  render_ms: number | null;
  created_at: number;
  claimed_at: number | null;
  uploaded_at: number | null;
  finished_at: number | null;
  reported_at: number | null;
  updated_at: number;
}

/** Why a worker's call on a task is refused (409 `details.reason`). */
export type Conflict = 'lease_lost' | 'cancelled' | 'result_missing' | 'not_found';

export interface WorkerResult {
  /** A render's metadata, or an avatar.train's `train` measurements, as the worker sent them. */
  metadata: RenderMetadata | TrainMetadata;
  faceIds: number[];
  renderMs: number | null;
}

export interface CreateTask {
  jobId: string;
  /** Defaults to animation.render. */
  kind?: string;
  /** The task's parameters and input paths, as its kind stores them (src/compute/tasks/). */
  request: unknown;
  /** A render's result file; an avatar.train's output folder. */
  outputPath: string;
}

export interface ComputeTasks {
  readonly leaseMs: number;
  /**
   * A new queued task for the job; live tasks of the same job are cancelled, and the job now
   * waits on the new task (it is woken when the task ends).
   */
  create(input: CreateTask): Promise<TaskRow>;
  /** Atomically leases the oldest queued task of one of `kinds`, or one whose lease ran out with attempts left. */
  claim(worker: WorkerIdentity & { label: string }, kinds?: readonly string[]): Promise<TaskRow | null>;
  /** Undoes a claim whose answer never reached its worker (it hung up): not an attempt. */
  release(taskId: string, lease: string): Promise<void>;
  heartbeat(taskId: string, lease: string, workerId: string, progress?: { done: number; total: number }): Promise<{ leaseUntil: number } | Conflict>;
  /** The task while `lease` is its live lease (file URLs), else null. */
  current(taskId: string, lease: string): Promise<TaskRow | null>;
  recordUpload(taskId: string, lease: string, bytes: number): Promise<boolean>;
  complete(taskId: string, lease: string, workerId: string, result: WorkerResult): Promise<'done' | Conflict>;
  /** With a kind the task fails for good; without one it is requeued until its attempts are used. */
  fail(taskId: string, lease: string, workerId: string, kind: string | null, description: string): Promise<'failed' | 'queued' | Conflict>;
  cancel(taskId: string, reason: string): Promise<boolean>;
  /**
   * Cancels the live tasks of every job of a resource (an animation being deleted). On
   * SQLite the update runs before this returns (it may join the caller's transaction).
   */
  cancelForResource(resourceId: string): Promise<void>;
  /** Fails a task whose last allowed lease ran out; true when it did. */
  expireIfExhausted(taskId: string): Promise<boolean>;
  get(taskId: string): Promise<TaskRow | null>;
  /** The newest task of a job, or null. */
  latestOfJob(jobId: string): Promise<TaskRow | null>;
  /** Claims the report of a failed task: true once (the job hears of the failure once; a retry submits anew). */
  takeFailure(taskId: string): Promise<boolean>;
  /** The job waits on this (still live) task again; false when the task already ended. */
  watch(taskId: string): Promise<boolean>;
  onQueued(listener: () => void): () => void;
  onChange(taskId: string, listener: () => void): () => void;
  /** Shutdown: waiting claims answer 204 at once, and new ones do not wait. */
  stopClaims(): void;
  readonly claimsStopped: boolean;
}

export interface ComputeTasksOptions {
  leaseMs: number;
  maxAttempts: number;
}

/**
 * The file an output of one attempt is uploaded to: each lease uploads to its own file, so a stale upload never
 * overwrites a newer one. `result` lies beside the output path; the named outputs of a task whose output path is a
 * folder (`avatar.train`) lie inside it.
 */
export const uploadPathOf = (row: Pick<TaskRow, 'output_path' | 'attempts'>, name = 'result'): string =>
  name === 'result' ? `${row.output_path}.attempt-${row.attempts}` : join(row.output_path, `.attempt-${row.attempts}.${name}`);

/**
 * The in-process signals of a task store: news of queued and changed tasks (told after the
 * store call, never inside a transaction), and the shutdown of claims.
 */
export function taskSignals() {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const signals = {
    stopped: false,
    /** Tells this process's listeners now (no other process hears of it). */
    emitChanged: (id: string) => events.emit(`task:${id}`),
    emitQueued: () => events.emit('queued'),
    changed(ids: Iterable<string>) {
      const list = [...ids];
      if (list.length) queueMicrotask(() => list.forEach(signals.emitChanged));
    },
    queued: () => queueMicrotask(signals.emitQueued),
    listen: {
      onQueued(listener: () => void) {
        events.on('queued', listener);
        return () => void events.off('queued', listener);
      },
      onChange(taskId: string, listener: () => void) {
        events.on(`task:${taskId}`, listener);
        return () => void events.off(`task:${taskId}`, listener);
      },
      stopClaims() {
        signals.stopped = true;
        events.emit('queued');
      },
    },
  };
  return signals;
}

const LIVE = `status IN ('queued', 'leased')`;
const lease = leaseSql({ table: 'compute_tasks', id: 'id', owner: 'lease', until: 'lease_until', skipLocked: SQLITE_SKIP_LOCKED });
/** Fragment, params: lease, now. */
const LEASE_IS_LIVE = `status = 'leased' AND lease = ? AND lease_until > ?`;
/** Claims take at most this many kinds (the worker's list). */
const MAX_KINDS = 8;

export function createComputeTasks(handle: Store, clock: Clock, newId: IdFactory, opts: ComputeTasksOptions): ComputeTasks {
  const { sqlite } = handle;
  const jobs = jobStatements(sqlite);
  const signals = taskSignals();
  const { changed, queued } = signals;

  const cancelJob = sqlite.prepare<[number, number, string], { id: string }>(
    `UPDATE compute_tasks SET status = 'cancelled', error = 'superseded by a newer task of the job', finished_at = ?, updated_at = ?
     WHERE job_id = ? AND ${LIVE} RETURNING id`,
  );
  const insert = sqlite.prepare(
    `INSERT INTO compute_tasks (id, job_id, kind, status, request, output_path, attempts, max_attempts, created_at, updated_at)
     VALUES (?, ?, ?, 'queued', ?, ?, 0, ?, ?, ?)`,
  );
  const byId = sqlite.prepare<[string], TaskRow>(`SELECT * FROM compute_tasks WHERE id = ?`);
  const latest = sqlite.prepare<[string], TaskRow>(`SELECT * FROM compute_tasks WHERE job_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`);
  // One statement per claim (lease-store.ts): the kinds are padded to MAX_KINDS so the statement is prepared once.
  const claim = sqlite.prepare<unknown[], TaskRow>(
    lease.claim({
      set: `status = 'leased', worker_id = ?, worker_name = ?, attempts = attempts + 1, progress_done = NULL, progress_total = NULL, claimed_at = ?, updated_at = ?`,
      claimable: `kind IN (${Array(MAX_KINDS).fill('?').join(', ')}) AND (status = 'queued' OR (status = 'leased' AND lease_until <= ? AND attempts < max_attempts))`,
      order: 'created_at, id',
    }),
  );
  const release = sqlite.prepare(
    lease.finish({ set: `status = 'queued', attempts = attempts - 1, updated_at = ?`, where: `status = 'leased'` }),
  );
  const heartbeat = sqlite.prepare(
    lease.renew({
      set: `progress_done = coalesce(?, progress_done), progress_total = coalesce(?, progress_total), updated_at = ?`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ?`,
    }),
  );
  const current = sqlite.prepare<unknown[], TaskRow>(`SELECT * FROM compute_tasks WHERE id = ? AND ${LEASE_IS_LIVE}`);
  const uploaded = sqlite.prepare(
    `UPDATE compute_tasks SET uploaded_lease = ?, result_bytes = ?, uploaded_at = ?, updated_at = ? WHERE id = ? AND ${LEASE_IS_LIVE}`,
  );
  // Done and failed keep the lease value: a repeated completion of the same lease is recognised by it.
  const complete = sqlite.prepare(
    lease.finish({
      keepOwner: true,
      set: `status = 'done', metadata = ?, face_ids = ?, render_ms = ?, finished_at = ?, updated_at = ?`,
      where: `worker_id = ? AND uploaded_lease = lease AND status = 'leased' AND lease_until > ?`,
    }),
  );
  const failInput = sqlite.prepare(
    lease.finish({
      keepOwner: true,
      set: `status = 'failed', error_kind = ?, error = ?, finished_at = ?, updated_at = ?`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ?`,
    }),
  );
  const failWorker = sqlite.prepare<unknown[], { status: 'queued' | 'failed' }>(
    lease.finish({
      set: `status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
         finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,
         error_kind = NULL, error = ?, updated_at = ?`,
      where: `worker_id = ? AND status = 'leased' AND lease_until > ?`,
    }) + ' RETURNING status',
  );
  const cancel = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'cancelled', error = ?, lease_until = NULL, finished_at = ?, updated_at = ? WHERE id = ? AND ${LIVE}`,
  );
  const cancelResource = sqlite.prepare<[number, number, string], { id: string }>(
    `UPDATE compute_tasks SET status = 'cancelled', error = 'the animation was deleted', lease_until = NULL, finished_at = ?, updated_at = ?
     WHERE ${LIVE} AND job_id IN (SELECT id FROM jobs WHERE resource_id = ?) RETURNING id`,
  );
  const expire = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'failed', error = 'the lease of the last allowed attempt ran out', lease_until = NULL,
       finished_at = ?, updated_at = ?
     WHERE id = ? AND status = 'leased' AND lease_until <= ? AND attempts >= max_attempts`,
  );

  const report = sqlite.prepare(`UPDATE compute_tasks SET reported_at = ?, updated_at = ? WHERE id = ? AND status = 'failed' AND reported_at IS NULL`);

  /** Runs a state change and, when it ended the task, wakes its job: one transaction. */
  const ending = <A extends unknown[]>(change: (...args: A) => boolean) =>
    sqlite.transaction((taskId: string, ...args: A): boolean => {
      if (!change(...args)) return false;
      const row = byId.get(taskId);
      if (row && row.status !== 'queued' && row.status !== 'leased') jobs.wake(row.job_id, row.id, clock.now());
      return true;
    });
  const completeTx = ending((...p: unknown[]) => complete.run(...p).changes > 0);
  const failInputTx = ending((...p: unknown[]) => failInput.run(...p).changes > 0);
  let workerFailStatus: 'queued' | 'failed' | null = null;
  const failWorkerTx = ending((...p: unknown[]) => (workerFailStatus = failWorker.get(...p)?.status ?? null) !== null);
  const expireTx = ending((...p: unknown[]) => expire.run(...p).changes > 0);

  /** Why a refused call was refused, read after the compare-and-set missed. */
  function conflictOf(taskId: string, leaseValue: string, workerId: string): Conflict {
    const row = byId.get(taskId);
    if (!row) return 'not_found';
    if (row.status === 'cancelled' || row.status === 'failed') return 'cancelled';
    const mine = row.status === 'leased' && row.lease === leaseValue && row.worker_id === workerId && (row.lease_until ?? 0) > clock.now();
    return mine && row.uploaded_lease !== leaseValue ? 'result_missing' : 'lease_lost';
  }

  const createTx = sqlite.transaction((input: CreateTask) => {
    const now = clock.now();
    const superseded = cancelJob.all(now, now, input.jobId).map((r) => r.id);
    const id = newId('ctk');
    insert.run(id, input.jobId, input.kind ?? DEFAULT_TASK_KIND, JSON.stringify(input.request), input.outputPath, opts.maxAttempts, now, now);
    jobs.waitOn(input.jobId, id, now);
    return { id, superseded };
  });
  const watchTx = sqlite.transaction((taskId: string) => {
    const row = byId.get(taskId);
    if (!row || (row.status !== 'queued' && row.status !== 'leased')) return false;
    jobs.waitOn(row.job_id, row.id, clock.now());
    return true;
  });

  return {
    leaseMs: opts.leaseMs,
    async create(input) {
      const { id, superseded } = createTx(input);
      changed(superseded);
      queued();
      return byId.get(id)!;
    },
    async claim(worker, kinds = [DEFAULT_TASK_KIND]) {
      if (signals.stopped || kinds.length === 0) return null;
      const now = clock.now();
      const leaseValue = `lse_${randomBytes(16).toString('base64url')}`;
      const padded = Array.from({ length: MAX_KINDS }, (_, i) => kinds[i] ?? null);
      const row = claim.get(leaseValue, now + opts.leaseMs, worker.id, worker.label, now, now, ...padded, now, 1) ?? null;
      if (row) changed([row.id]);
      return row;
    },
    async release(taskId, leaseValue) {
      if (release.run(clock.now(), taskId, leaseValue).changes > 0) {
        changed([taskId]);
        queued();
      }
    },
    async heartbeat(taskId, leaseValue, workerId, progress) {
      const now = clock.now();
      const until = now + opts.leaseMs;
      const res = heartbeat.run(until, progress?.done ?? null, progress?.total ?? null, now, taskId, leaseValue, workerId, now);
      if (res.changes === 0) return conflictOf(taskId, leaseValue, workerId);
      if (progress) {
        // The parked job relays progress to its resource: news wakes it (it waits again at once).
        const row = byId.get(taskId);
        if (row) jobs.wake(row.job_id, row.id, now);
        changed([taskId]);
      }
      return { leaseUntil: until };
    },
    current: async (taskId, leaseValue) => current.get(taskId, leaseValue, clock.now()) ?? null,
    async recordUpload(taskId, leaseValue, bytes) {
      const now = clock.now();
      return uploaded.run(leaseValue, bytes, now, now, taskId, leaseValue, now).changes > 0;
    },
    async complete(taskId, leaseValue, workerId, result) {
      const now = clock.now();
      const done = completeTx(
        taskId,
        JSON.stringify(result.metadata),
        JSON.stringify(result.faceIds),
        result.renderMs,
        now,
        now,
        taskId,
        leaseValue,
        workerId,
        now,
      );
      if (done) {
        changed([taskId]);
        return 'done';
      }
      // A repeated completion of the same lease (its answer was lost) is answered as the first was.
      const row = byId.get(taskId);
      if (row?.status === 'done' && row.lease === leaseValue && row.worker_id === workerId) return 'done';
      return conflictOf(taskId, leaseValue, workerId);
    },
    async fail(taskId, leaseValue, workerId, kind, description) {
      const now = clock.now();
      let status: 'failed' | 'queued' | null = null;
      if (kind) status = failInputTx(taskId, kind, description, now, now, taskId, leaseValue, workerId, now) ? 'failed' : null;
      else status = failWorkerTx(taskId, now, description, now, taskId, leaseValue, workerId, now) ? workerFailStatus : null;
      if (!status) return conflictOf(taskId, leaseValue, workerId);
      changed([taskId]);
      if (status === 'queued') queued();
      return status;
    },
    async cancel(taskId, reason) {
      const now = clock.now();
      const done = cancel.run(reason, now, now, taskId).changes > 0;
      if (done) changed([taskId]);
      return done;
    },
    cancelForResource(resourceId) {
      const now = clock.now();
      changed(cancelResource.all(now, now, resourceId).map((r) => r.id));
      return Promise.resolve();
    },
    async expireIfExhausted(taskId) {
      const now = clock.now();
      const done = expireTx(taskId, now, now, taskId, now);
      if (done) changed([taskId]);
      return done;
    },
    get: async (taskId) => byId.get(taskId) ?? null,
    latestOfJob: async (jobId) => latest.get(jobId) ?? null,
    watch: async (taskId) => watchTx(taskId),
    async takeFailure(taskId) {
      const now = clock.now();
      return report.run(now, now, taskId).changes > 0;
    },
    ...signals.listen,
    get claimsStopped() {
      return signals.stopped;
    },
  };
}
