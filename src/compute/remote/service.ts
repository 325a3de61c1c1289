import { statSync } from 'node:fs';
import type { Clock } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import type { ClaimBody, ClaimedTask, CompleteBody, FailBody, HeartbeatBody } from '../../schemas/compute.ts';
import { contentTypeOfInput, presentRender, presentTrain, taskInputPath, type StoredRender, type StoredTrain } from './protocol.ts';
import { signFileUrl, verifyFileUrl, type FileMethod, type FileName } from './signing.ts';
import { uploadPathOf, type ComputeTasks, type Conflict, type TaskRow, type WorkerResult } from './task-store.ts';
import type { WorkerIdentity } from './tokens.ts';
import { DEFAULT_TASK_KIND, TASK_KINDS, TRAIN_TASK_KIND } from '../kinds.ts';
import { STREAM_SOCKET_PATH, STREAM_TASK_KIND } from './stream.ts';

/** The signed stream socket of a `stream.render` task: the file-URL signature over the name `stream`, on the socket's path. */
function streamUrl(deps: ComputeServiceDeps, taskId: string, lease: string, now: number): string {
  const signed = new URL(signFileUrl({ key: deps.urlKey, publicUrl: deps.publicUrl, ttlSeconds: deps.urlTtlSeconds, now, taskId, lease, name: 'stream', method: 'GET' }));
  const query = new URLSearchParams({ task: taskId, ...Object.fromEntries(signed.searchParams) });
  return `${deps.publicUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}${STREAM_SOCKET_PATH}?${query}`;
}

/** The verbs behind /compute/v1: what the routes call once they have parsed a request. */
export interface ComputeServiceDeps {
  tasks: ComputeTasks;
  /** deriveKey(master, 'compute-url') */
  urlKey: Buffer;
  publicUrl: string;
  urlTtlSeconds: number;
  /** Largest result a worker may upload (config.fetch.maxVideoBytes). */
  maxResultBytes: number;
  /** How often a waiting claim looks for tasks another API process queued, or leases that ran out. */
  pollMs: number;
  clock: Clock;
}

const DEFAULT_WAIT_MS = 20_000;

const CONFLICT_TEXT: Record<Exclude<Conflict, 'not_found'>, string> = {
  lease_lost: 'The lease ran out and the task is no longer yours: stop working on it',
  cancelled: 'The task was cancelled: stop working on it',
  result_missing: 'No result was uploaded under this lease',
};

function refuse(conflict: Conflict): never {
  if (conflict === 'not_found') throw new ApiError('NotFoundError', 'Task not found');
  throw new ApiError('ConflictError', CONFLICT_TEXT[conflict], { reason: conflict });
}

function presentClaim(deps: ComputeServiceDeps, row: TaskRow): ClaimedTask {
  const lease = row.lease!;
  const now = deps.clock.now();
  const sign = (name: FileName, method: FileMethod) =>
    signFileUrl({ key: deps.urlKey, publicUrl: deps.publicUrl, ttlSeconds: deps.urlTtlSeconds, now, taskId: row.id, lease, name, method });
  const kind = TASK_KINDS[row.kind] ?? TASK_KINDS[DEFAULT_TASK_KIND]!;
  const inputs = Object.fromEntries(kind.inputs.filter((name) => taskInputPath(row.kind, row.request, name as FileName) !== null).map((name) => [name, sign(name as FileName, 'GET')]));
  const head = {
    task_id: row.id,
    lease,
    lease_ms: deps.tasks.leaseMs,
    lease_expires_at: isoTime(row.lease_until!),
    attempt: row.attempts,
    kind: row.kind,
    inputs,
  };
  if (row.kind === TRAIN_TASK_KIND) return { ...head, ...presentTrain(JSON.parse(row.request) as StoredTrain, sign, deps.maxResultBytes) };
  const animation = presentRender(JSON.parse(row.request) as StoredRender, sign, deps.maxResultBytes);
  return {
    ...head,
    outputs: kind.outputs.includes('result') ? { result: animation.result } : {},
    ...(row.kind === STREAM_TASK_KIND ? { stream_url: streamUrl(deps, row.id, lease, now) } : {}),
    ...animation,
  };
}

/** Resolves on news of a queued task, after `pollMs`, after `ms`, or when the caller hangs up. */
function nap(deps: ComputeServiceDeps, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.min(ms, deps.pollMs));
    const off = deps.tasks.onQueued(done);
    signal.addEventListener('abort', done);
  });
}

/**
 * POST /compute/v1/claim: a task, or null (204) after `wait_ms`. A claim made for a worker
 * that hung up meanwhile is released again, so it costs no attempt.
 */
export async function claimTask(deps: ComputeServiceDeps, worker: WorkerIdentity, body: ClaimBody, signal: AbortSignal): Promise<ClaimedTask | null> {
  const deadline = performance.now() + (body.wait_ms ?? DEFAULT_WAIT_MS);
  const who = { ...worker, label: body.worker?.name ?? worker.name };
  for (;;) {
    if (signal.aborted || deps.tasks.claimsStopped) return null;
    const row = await deps.tasks.claim(who, body.kinds ?? [DEFAULT_TASK_KIND]);
    if (row) {
      if (!signal.aborted) return presentClaim(deps, row);
      await deps.tasks.release(row.id, row.lease!);
      return null;
    }
    const left = deadline - performance.now();
    if (left <= 0) return null;
    await nap(deps, left, signal);
  }
}

export async function heartbeatTask(deps: ComputeServiceDeps, worker: WorkerIdentity, taskId: string, body: HeartbeatBody) {
  if (body.progress && body.progress.done > body.progress.total) {
    throw new ApiError('ValidationError', 'Invalid request body: progress.done must not exceed progress.total', [
      { field: 'progress.done', message: 'must be <= progress.total' },
    ]);
  }
  const res = await deps.tasks.heartbeat(taskId, body.lease, worker.id, body.progress);
  if (typeof res === 'string') refuse(res);
  return { lease_expires_at: isoTime(res.leaseUntil) };
}

const invalid = (field: string, message: string) =>
  new ApiError('ValidationError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

/** What a task of this kind completes with: a render's metadata and face ids, or an avatar.train's measurements. */
async function workerResult(deps: ComputeServiceDeps, worker: WorkerIdentity, taskId: string, body: CompleteBody): Promise<WorkerResult> {
  const row = await deps.tasks.get(taskId);
  const renderMs = body.render_ms ?? null;
  if (row?.kind !== TRAIN_TASK_KIND) {
    if (body.train) throw invalid('train', 'belongs to avatar.train tasks only');
    if (!body.metadata) throw invalid('metadata', 'is required');
    if (!body.face_ids) throw invalid('face_ids', 'is required');
    return { metadata: body.metadata, faceIds: body.face_ids, renderMs };
  }
  if (!body.train) throw invalid('train', 'is required for an avatar.train task');
  if (body.metadata || body.face_ids) throw invalid('metadata', 'belongs to render tasks, not to avatar.train');
  const { idle } = JSON.parse(row.request) as StoredTrain;
  // The reference frame lies in the idle window, and the loop was cut from it (a frame of slack each way).
  const slack = 0.05;
  if (body.train.reference_sec < idle.fromSec - slack || body.train.reference_sec > idle.toSec + slack) {
    throw invalid('train.reference_sec', `must lie in the idle window (${idle.fromSec} to ${idle.toSec} s)`);
  }
  if (body.train.loop_sec > idle.toSec - idle.fromSec + slack) throw invalid('train.loop_sec', `must not exceed the idle window (${idle.toSec - idle.fromSec} s)`);
  // Every output of this attempt must be uploaded (a render's one result is checked by the store with its lease).
  if (row.status === 'leased' && row.lease === body.lease && row.worker_id === worker.id) {
    for (const name of TASK_KINDS[TRAIN_TASK_KIND]!.outputs) {
      if (!statSync(uploadPathOf(row, name), { throwIfNoEntry: false })?.isFile()) {
        throw new ApiError('ConflictError', `${CONFLICT_TEXT.result_missing} (${name})`, { reason: 'result_missing' });
      }
    }
  }
  return { metadata: body.train, faceIds: [], renderMs };
}

export async function completeTask(deps: ComputeServiceDeps, worker: WorkerIdentity, taskId: string, body: CompleteBody) {
  const res = await deps.tasks.complete(taskId, body.lease, worker.id, await workerResult(deps, worker, taskId, body));
  if (res !== 'done') refuse(res);
  return { status: 'done' as const };
}

/**
 * A worker's description reaches the user when it names an input kind: it may say why, but
 * never where (no URL, no path of the worker's machine).
 */
export function userFacingDescription(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]')
    .replace(/(^|[\s(=:"'])(?:~|\.{1,2})?\/[^\s"')]+/g, '$1[path]')
    .replace(/\b[A-Za-z]:\\[^\s"')]+/g, '[path]')
    .trim();
}

export async function failTask(deps: ComputeServiceDeps, worker: WorkerIdentity, taskId: string, body: FailBody) {
  const description = body.description
    ? userFacingDescription(body.description) || 'The render failed'
    : body.kind
      ? `The render failed (${body.kind})`
      : 'The worker gave the task up';
  const res = await deps.tasks.fail(taskId, body.lease, worker.id, body.kind ?? null, description);
  if (res !== 'failed' && res !== 'queued') refuse(res);
  return { status: res };
}

export interface FileQuery {
  lease: string | undefined;
  expires: string | undefined;
  signature: string | undefined;
}

const denied = (description: string) => new ApiError('PermissionError', description);

/** Checks a file URL: its signature, its expiry, and that its lease is still the task's live lease. */
export async function authorizeFile(deps: ComputeServiceDeps, taskId: string, name: string, method: FileMethod, q: FileQuery): Promise<TaskRow> {
  const check = verifyFileUrl({ key: deps.urlKey, taskId, name: name as FileName, method, ...q, now: deps.clock.now() });
  if (check === 'expired') throw denied('The file URL has expired');
  if (check !== 'ok') throw denied('The file URL signature is missing or invalid');
  const row = await deps.tasks.current(taskId, q.lease!);
  if (!row) throw denied('The lease of this file URL is no longer current');
  return row;
}

/** GET of an input file: where it is, how large, and its type. */
export async function openInput(deps: ComputeServiceDeps, taskId: string, name: string, q: FileQuery) {
  const row = await authorizeFile(deps, taskId, name, 'GET', q);
  const path = taskInputPath(row.kind, row.request, name as FileName);
  const st = path ? statSync(path, { throwIfNoEntry: false }) : undefined;
  if (!path || !st?.isFile()) throw new ApiError('NotFoundError', 'The task has no such file');
  return { path, size: st.size, contentType: contentTypeOfInput(path) };
}
