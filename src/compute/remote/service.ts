import type { Clock } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import type { ClaimBody, ClaimedTask, CompleteBody, FailBody, HeartbeatBody } from '../../schemas/compute.ts';
import { contentTypeOfInput } from './protocol.ts';
import { signFileUrl, verifyFileUrl, type FileMethod, type FileName } from './signing.ts';
import type { ComputeTasks, Conflict, TaskRow, WorkerResult } from './task-store.ts';
import { localComputeFiles, type ComputeFiles } from './files.ts';
import type { WorkerIdentity } from './tokens.ts';
import { DEFAULT_TASK_KIND, taskOf } from '../tasks/index.ts';
import { STREAM_SOCKET_PATH } from './stream.ts';

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
  /** Where task inputs and uploads live (default: this machine's files). */
  files?: ComputeFiles;
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
  const task = taskOf(row.kind);
  const stored: unknown = JSON.parse(row.request);
  const inputs = Object.fromEntries(task.inputs.filter((name) => task.remote.inputPath(stored, name) !== null).map((name) => [name, sign(name, 'GET')]));
  return {
    task_id: row.id,
    lease,
    lease_ms: deps.tasks.leaseMs,
    lease_expires_at: isoTime(row.lease_until!),
    attempt: row.attempts,
    kind: row.kind,
    inputs,
    ...task.remote.present(stored, { sign, maxBytes: deps.maxResultBytes, streamUrl: () => streamUrl(deps, row.id, lease, now) }),
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

/** What a task of this kind completes with (its kind checks the body): a render's metadata and face ids, an avatar.train's measurements. */
async function workerResult(deps: ComputeServiceDeps, worker: WorkerIdentity, taskId: string, body: CompleteBody): Promise<WorkerResult> {
  const row = await deps.tasks.get(taskId);
  // An unknown task is checked as the default kind's, then refused by the store (404).
  const task = taskOf(row?.kind ?? DEFAULT_TASK_KIND);
  const stored: unknown = row ? JSON.parse(row.request) : null;
  // Only the completing attempt's uploads count (a stale lease is refused by the store).
  const current = !!row && row.status === 'leased' && row.lease === body.lease && row.worker_id === worker.id;
  const files = deps.files ?? localComputeFiles;
  const uploaded = new Set(current ? (await Promise.all(task.outputs.map(async (name) => ((await files.hasUpload(row!, name)) ? [name] : [])))).flat() : []);
  const requireUploads = (names: readonly string[]) => {
    if (!current) return;
    for (const name of names) {
      if (!uploaded.has(name)) {
        throw new ApiError('ConflictError', `${CONFLICT_TEXT.result_missing} (${name})`, { reason: 'result_missing' });
      }
    }
  };
  return { ...task.remote.completion(body, stored, { row: row!, requireUploads }), renderMs: body.render_ms ?? null };
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

/** GET of an input file: how large, its type, and its bytes (opened only for a GET). */
export async function openInput(deps: ComputeServiceDeps, taskId: string, name: string, q: FileQuery) {
  const row = await authorizeFile(deps, taskId, name, 'GET', q);
  const file = await (deps.files ?? localComputeFiles).openInput(row, name);
  if (!file) throw new ApiError('NotFoundError', 'The task has no such file');
  return { size: file.size, contentType: contentTypeOfInput(file.path), open: file.open };
}
