import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock, IdFactory } from '../../clock.ts';
import type { RenderMetadata } from '../interface.ts';
import type { StoredRender } from './protocol.ts';
import type { WorkerIdentity } from './tokens.ts';

/**
 * The task table of the remote backend, and the in-process signals around it.
 *
 * A lease is live while `status = 'leased' AND lease = ? AND lease_until > now`. Every change
 * a worker asks for is ONE conditional UPDATE naming the lease (a compare-and-set), so two
 * API processes on one database can never both accept a claim, an upload or a completion.
 * Everything here is synchronous SQL (callers may run it inside their own transactions);
 * listeners are told after the caller's synchronous code ends, so never inside one.
 */

export type TaskStatus = 'queued' | 'leased' | 'done' | 'failed' | 'cancelled';

export interface TaskRow {
  id: string;
  job_id: string;
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
  updated_at: number;
}

/** Why a worker's call on a task is refused (409 `details.reason`). */
export type Conflict = 'lease_lost' | 'cancelled' | 'result_missing' | 'not_found';

export interface WorkerResult {
  metadata: RenderMetadata;
  faceIds: number[];
  renderMs: number | null;
}

export interface ComputeTasks {
  readonly leaseMs: number;
  /** A new queued task for the job; live tasks of the same job are cancelled. */
  create(input: { jobId: string; render: StoredRender; outputPath: string }): TaskRow;
  /** Atomically leases the oldest queued task, or one whose lease ran out with attempts left. */
  claim(worker: WorkerIdentity & { label: string }): TaskRow | null;
  /** Undoes a claim whose answer never reached its worker (it hung up): not an attempt. */
  release(taskId: string, lease: string): void;
  heartbeat(taskId: string, lease: string, workerId: string, progress?: { done: number; total: number }): { leaseUntil: number } | Conflict;
  /** The task while `lease` is its live lease (file URLs), else null. */
  current(taskId: string, lease: string): TaskRow | null;
  recordUpload(taskId: string, lease: string, bytes: number): boolean;
  complete(taskId: string, lease: string, workerId: string, result: WorkerResult): 'done' | Conflict;
  /** With a kind the task fails for good; without one it is requeued until its attempts are used. */
  fail(taskId: string, lease: string, workerId: string, kind: string | null, description: string): 'failed' | 'queued' | Conflict;
  cancel(taskId: string, reason: string): boolean;
  /** Cancels the live tasks of every job of a resource (an animation being deleted). */
  cancelForResource(resourceId: string): void;
  /** Fails a task whose last allowed lease ran out; true when it did. */
  expireIfExhausted(taskId: string): boolean;
  get(taskId: string): TaskRow | null;
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

/** The result file of one attempt: each lease uploads to its own file, so a stale upload never overwrites a newer one. */
export const uploadPathOf = (row: Pick<TaskRow, 'output_path' | 'attempts'>): string => `${row.output_path}.attempt-${row.attempts}`;

const LIVE = `status IN ('queued', 'leased')`;
const LEASE_IS_LIVE = `status = 'leased' AND lease = @lease AND lease_until > @now`;

export function createComputeTasks(sqlite: Database.Database, clock: Clock, newId: IdFactory, opts: ComputeTasksOptions): ComputeTasks {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const changed = (ids: Iterable<string>) => {
    const list = [...ids];
    if (list.length) queueMicrotask(() => list.forEach((id) => events.emit(`task:${id}`)));
  };
  const queued = () => queueMicrotask(() => events.emit('queued'));
  let claimsStopped = false;

  const cancelJob = sqlite.prepare<{ job: string; now: number }, { id: string }>(
    `UPDATE compute_tasks SET status = 'cancelled', error = 'superseded by a newer task of the job', finished_at = @now, updated_at = @now
     WHERE job_id = @job AND ${LIVE} RETURNING id`,
  );
  const insert = sqlite.prepare(
    `INSERT INTO compute_tasks (id, job_id, status, request, output_path, attempts, max_attempts, created_at, updated_at)
     VALUES (@id, @job, 'queued', @request, @output, 0, @max, @now, @now)`,
  );
  const byId = sqlite.prepare<[string], TaskRow>(`SELECT * FROM compute_tasks WHERE id = ?`);
  // One statement: the sub-select and the update run under SQLite's write lock (as in jobs/queue.ts).
  const claim = sqlite.prepare<Record<string, unknown>, TaskRow>(
    `UPDATE compute_tasks
     SET status = 'leased', lease = @lease, lease_until = @until, worker_id = @worker, worker_name = @label,
         attempts = attempts + 1, progress_done = NULL, progress_total = NULL, claimed_at = @now, updated_at = @now
     WHERE id = (
       SELECT id FROM compute_tasks
       WHERE status = 'queued' OR (status = 'leased' AND lease_until <= @now AND attempts < max_attempts)
       ORDER BY created_at, id LIMIT 1
     )
     RETURNING *`,
  );
  const release = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'queued', attempts = attempts - 1, lease = NULL, lease_until = NULL, updated_at = @now
     WHERE id = @id AND status = 'leased' AND lease = @lease`,
  );
  const heartbeat = sqlite.prepare(
    `UPDATE compute_tasks SET lease_until = @until, progress_done = coalesce(@done, progress_done),
       progress_total = coalesce(@total, progress_total), updated_at = @now
     WHERE id = @id AND worker_id = @worker AND ${LEASE_IS_LIVE}`,
  );
  const current = sqlite.prepare<Record<string, unknown>, TaskRow>(`SELECT * FROM compute_tasks WHERE id = @id AND ${LEASE_IS_LIVE}`);
  const uploaded = sqlite.prepare(
    `UPDATE compute_tasks SET uploaded_lease = @lease, result_bytes = @bytes, uploaded_at = @now, updated_at = @now
     WHERE id = @id AND ${LEASE_IS_LIVE}`,
  );
  const complete = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'done', metadata = @metadata, face_ids = @faceIds, render_ms = @renderMs,
       lease_until = NULL, finished_at = @now, updated_at = @now
     WHERE id = @id AND worker_id = @worker AND uploaded_lease = @lease AND ${LEASE_IS_LIVE}`,
  );
  const failInput = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'failed', error_kind = @kind, error = @error, lease_until = NULL, finished_at = @now, updated_at = @now
     WHERE id = @id AND worker_id = @worker AND ${LEASE_IS_LIVE}`,
  );
  const failWorker = sqlite.prepare<Record<string, unknown>, { status: 'queued' | 'failed' }>(
    `UPDATE compute_tasks
     SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
         finished_at = CASE WHEN attempts >= max_attempts THEN @now ELSE NULL END,
         error_kind = NULL, error = @error, lease = NULL, lease_until = NULL, updated_at = @now
     WHERE id = @id AND worker_id = @worker AND ${LEASE_IS_LIVE}
     RETURNING status`,
  );
  const cancel = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'cancelled', error = @reason, lease_until = NULL, finished_at = @now, updated_at = @now
     WHERE id = @id AND ${LIVE}`,
  );
  const cancelResource = sqlite.prepare<{ resource: string; now: number }, { id: string }>(
    `UPDATE compute_tasks SET status = 'cancelled', error = 'the animation was deleted', lease_until = NULL, finished_at = @now, updated_at = @now
     WHERE ${LIVE} AND job_id IN (SELECT id FROM jobs WHERE resource_id = @resource) RETURNING id`,
  );
  const expire = sqlite.prepare(
    `UPDATE compute_tasks SET status = 'failed', error = 'the lease of the last allowed attempt ran out', lease_until = NULL,
       finished_at = @now, updated_at = @now
     WHERE id = @id AND status = 'leased' AND lease_until <= @now AND attempts >= max_attempts`,
  );

  /** Why a refused call was refused, read after the compare-and-set missed. */
  function conflictOf(taskId: string, lease: string, workerId: string): Conflict {
    const row = byId.get(taskId);
    if (!row) return 'not_found';
    if (row.status === 'cancelled' || row.status === 'failed') return 'cancelled';
    const mine = row.status === 'leased' && row.lease === lease && row.worker_id === workerId && (row.lease_until ?? 0) > clock.now();
    return mine && row.uploaded_lease !== lease ? 'result_missing' : 'lease_lost';
  }

  const createTx = sqlite.transaction((input: { jobId: string; render: StoredRender; outputPath: string }) => {
    const now = clock.now();
    const superseded = cancelJob.all({ job: input.jobId, now }).map((r) => r.id);
    const id = newId('ctk');
    insert.run({ id, job: input.jobId, request: JSON.stringify(input.render), output: input.outputPath, max: opts.maxAttempts, now });
    return { id, superseded };
  });

  return {
    leaseMs: opts.leaseMs,
    create(input) {
      const { id, superseded } = createTx(input);
      changed(superseded);
      queued();
      return byId.get(id)!;
    },
    claim(worker) {
      if (claimsStopped) return null;
      const now = clock.now();
      const lease = `lse_${randomBytes(16).toString('base64url')}`;
      const row = claim.get({ lease, until: now + opts.leaseMs, worker: worker.id, label: worker.label, now }) ?? null;
      if (row) changed([row.id]);
      return row;
    },
    release(taskId, lease) {
      if (release.run({ id: taskId, lease, now: clock.now() }).changes > 0) {
        changed([taskId]);
        queued();
      }
    },
    heartbeat(taskId, lease, workerId, progress) {
      const now = clock.now();
      const until = now + opts.leaseMs;
      const res = heartbeat.run({ id: taskId, lease, worker: workerId, now, until, done: progress?.done ?? null, total: progress?.total ?? null });
      if (res.changes === 0) return conflictOf(taskId, lease, workerId);
      if (progress) changed([taskId]);
      return { leaseUntil: until };
    },
    current: (taskId, lease) => current.get({ id: taskId, lease, now: clock.now() }) ?? null,
    recordUpload(taskId, lease, bytes) {
      return uploaded.run({ id: taskId, lease, bytes, now: clock.now() }).changes > 0;
    },
    complete(taskId, lease, workerId, result) {
      const res = complete.run({
        id: taskId,
        lease,
        worker: workerId,
        now: clock.now(),
        metadata: JSON.stringify(result.metadata),
        faceIds: JSON.stringify(result.faceIds),
        renderMs: result.renderMs,
      });
      if (res.changes > 0) {
        changed([taskId]);
        return 'done';
      }
      // A repeated completion of the same lease (its answer was lost) is answered as the first was.
      const row = byId.get(taskId);
      if (row?.status === 'done' && row.lease === lease && row.worker_id === workerId) return 'done';
      return conflictOf(taskId, lease, workerId);
    },
    fail(taskId, lease, workerId, kind, description) {
      const params = { id: taskId, lease, worker: workerId, now: clock.now(), error: description };
      let status: 'failed' | 'queued' | null = null;
      if (kind) status = failInput.run({ ...params, kind }).changes > 0 ? 'failed' : null;
      else status = failWorker.get(params)?.status ?? null;
      if (!status) return conflictOf(taskId, lease, workerId);
      changed([taskId]);
      if (status === 'queued') queued();
      return status;
    },
    cancel(taskId, reason) {
      const done = cancel.run({ id: taskId, reason, now: clock.now() }).changes > 0;
      if (done) changed([taskId]);
      return done;
    },
    cancelForResource(resourceId) {
      changed(cancelResource.all({ resource: resourceId, now: clock.now() }).map((r) => r.id));
    },
    expireIfExhausted(taskId) {
      const done = expire.run({ id: taskId, now: clock.now() }).changes > 0;
      if (done) changed([taskId]);
      return done;
    },
    get: (taskId) => byId.get(taskId) ?? null,
    onQueued(listener) {
      events.on('queued', listener);
      return () => events.off('queued', listener);
    },
    onChange(taskId, listener) {
      events.on(`task:${taskId}`, listener);
      return () => events.off(`task:${taskId}`, listener);
    },
    stopClaims() {
      claimsStopped = true;
      events.emit('queued');
    },
    get claimsStopped() {
      return claimsStopped;
    },
  };
}
