import { RenderError, RENDER_ERROR_KINDS, type RenderErrorKind } from '../../errors.ts';
import type { ComputeBackend, ParkingBackend, RenderState } from '../interface.ts';
import { DEFAULT_TASK_KIND, taskOf } from '../tasks/index.ts';
import type { ComputeTasks, CreateTask, TaskRow } from './task-store.ts';
import { localComputeFiles, type ComputeFiles } from './files.ts';

export interface RemoteBackendOptions {
  tasks: ComputeTasks;
  /** Fallback look at the task row, for what another API process sharing the database did. */
  pollMs: number;
  /**
   * A task cancelled by someone else (its animation deleted, or a newer task of its job) is
   * followed by the abort of its render; if none comes within this time, render() fails.
   */
  cancelGraceMs: number;
  /** The longest a parked job waits before it looks at its task again (default 60 s). */
  recheckMs?: number;
  /** Where task inputs and uploads live (default: beside the job's files, one machine). */
  files?: ComputeFiles;
}

const abortError = (): DOMException => new DOMException('the render was aborted', 'AbortError');

const isRenderErrorKind = (kind: string): kind is RenderErrorKind => (RENDER_ERROR_KINDS as readonly string[]).includes(kind);

const failureOf = (row: TaskRow): Error =>
  row.error_kind && isRenderErrorKind(row.error_kind)
    ? new RenderError(row.error_kind, row.error ?? 'The render failed')
    : new Error(`remote render failed after ${row.attempts} attempt(s): ${row.error ?? 'unknown reason'}`);

/** The parked form of a remote render: submit, return, and be woken when the task ends. */
function parkingOf(tasks: ComputeTasks, recheckMs: number, files: ComputeFiles): ParkingBackend {
  async function poll(jobId: string, outputPath: string): Promise<RenderState<unknown>> {
    for (let tries = 0; tries < 3; tries++) {
      const latest = await tasks.latestOfJob(jobId);
      if (!latest) return { state: 'none' };
      await tasks.expireIfExhausted(latest.id);
      const row = (await tasks.get(latest.id))!;
      switch (row.status) {
        case 'queued':
        case 'leased':
          // Wait on it again; when it ended in between, look once more.
          if (!(await tasks.watch(row.id))) continue;
          return { state: 'running', progress: row.progress_done !== null && row.progress_total !== null ? { done: row.progress_done, total: row.progress_total } : null };
        case 'done': {
          const result = await readBack(files, row, outputPath);
          return result === null ? { state: 'none' } : { state: 'done', result };
        }
        case 'failed':
          await files.forget(row);
          if (await tasks.takeFailure(row.id)) throw failureOf(row);
          return { state: 'none' };
        case 'cancelled':
          return { state: 'none' };
      }
    }
    throw new Error('the render task kept changing under its job');
  }
  return {
    recheckMs,
    poll: (_kind, jobId, outputPath) => poll(jobId, outputPath) as never,
    async submit(kind, req) {
      const stored = taskOf(kind).remote.store(req);
      await files.shareInputs(kind, stored.request);
      await tasks.create({ jobId: req.jobId, kind, ...stored });
    },
  };
}

/**
 * The remote backend: run() writes a task row for workers and wait for it to end. News
 * comes from the route handlers of this process at once, and from the database every
 * `pollMs` (another API process, a lease that ran out).
 */
/** The accepted attempt's outputs moved to `target` and read; then the task's shared files go. */
async function readBack(files: ComputeFiles, row: TaskRow, target: string): Promise<unknown> {
  const result: unknown = await taskOf(row.kind).remote.readBack(row, target, (name, to) => files.takeUpload(row, name, to));
  if (result !== null) await files.forget(row);
  return result;
}

export function createRemoteBackend(opts: RemoteBackendOptions): ComputeBackend {
  const { tasks } = opts;
  const files = opts.files ?? localComputeFiles;
  let closed = false;
  /** Ends each waiting render; close() calls them so no poll outlives the backend. */
  const waiting = new Set<(err: Error) => void>();

  /** Writes a task row and waits for it to end; `deliver` turns the done task into the result. */
  async function runTask<T>(
    req: { signal: AbortSignal; onProgress?: (done: number, total: number) => void },
    create: CreateTask,
    deliver: (row: TaskRow) => Promise<T>,
  ): Promise<T> {
    if (closed) throw new Error('the remote backend is closed');
    if (req.signal.aborted) throw abortError();
    await files.shareInputs(create.kind ?? DEFAULT_TASK_KIND, create.request);
    const task = await tasks.create(create);
    if (req.signal.aborted) {
      await tasks.cancel(task.id, 'the render was aborted');
      throw abortError();
    }

    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let progress = '';
      let graceTimer: NodeJS.Timeout | undefined;
      const poll = setInterval(check, opts.pollMs);
      poll.unref();
      const offChange = tasks.onChange(task.id, check);
      const onAbort = () => {
        void tasks.cancel(task.id, 'the render was aborted').catch(() => {});
        settle(() => reject(abortError()));
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      const abandon = (err: Error) => settle(() => reject(err));
      waiting.add(abandon);

      function settle(fn: () => void) {
        if (settled) return;
        settled = true;
        waiting.delete(abandon);
        clearInterval(poll);
        clearTimeout(graceTimer);
        offChange();
        req.signal.removeEventListener('abort', onAbort);
        fn();
      }

      function relayProgress(row: TaskRow) {
        if (row.progress_done === null || row.progress_total === null) return;
        const now = `${row.progress_done}/${row.progress_total}`;
        if (now === progress) return;
        progress = now;
        req.onProgress?.(row.progress_done, row.progress_total);
      }

      let checking = false;
      function check() {
        if (settled || checking) return;
        checking = true;
        look().then(
          () => (checking = false),
          (err: unknown) => settle(() => reject(err)),
        );
      }

      async function look() {
        await tasks.expireIfExhausted(task.id);
        const row = await tasks.get(task.id);
        if (settled) return;
        if (!row) return settle(() => reject(new Error('the render task disappeared')));
        relayProgress(row);
        switch (row.status) {
          case 'done':
            return settle(() => deliver(row).then(resolve, reject));
          case 'failed':
            // Its files go first; a store that fails to remove them does not hide the render's failure.
            return settle(() => void files.forget(row).then(() => reject(failureOf(row)), () => reject(failureOf(row))));
          case 'cancelled':
            graceTimer ??= setTimeout(() => settle(() => reject(new Error(`the render task was cancelled: ${row.error ?? ''}`))), opts.cancelGraceMs);
            return;
          default:
            return;
        }
      }
    });
  }

  const run: ComputeBackend['run'] = (kind, req) => {
    const task = taskOf(kind);
    const create = { jobId: req.jobId, kind, ...task.remote.store(req) };
    return runTask(req, create, async (row) => {
      const result = await readBack(files, row, create.outputPath);
      if (result === null) throw new Error(`the outputs of task ${row.id} are missing`);
      return result as never;
    });
  };

  return {
    name: 'remote',
    parking: parkingOf(tasks, opts.recheckMs ?? 60_000, files),
    run,
    async close() {
      closed = true;
      tasks.stopClaims();
      for (const abandon of [...waiting]) abandon(new Error('the remote backend is closed'));
    },
  };
}
