import { rename } from 'node:fs/promises';
import { RenderError, RENDER_ERROR_KINDS, type RenderErrorKind } from '../../errors.ts';
import type { ComputeBackend, RenderMetadata, RenderResult } from '../interface.ts';
import { storedRender } from './protocol.ts';
import { uploadPathOf, type ComputeTasks, type TaskRow } from './tasks.ts';

export interface RemoteBackendOptions {
  tasks: ComputeTasks;
  /** Fallback look at the task row, for what another API process sharing the database did. */
  pollMs: number;
  /**
   * A task cancelled by someone else (its animation deleted, or a newer task of its job) is
   * followed by the abort of its render; if none comes within this time, render() fails.
   */
  cancelGraceMs: number;
}

const abortError = (): DOMException => new DOMException('the render was aborted', 'AbortError');

const isRenderErrorKind = (kind: string): kind is RenderErrorKind => (RENDER_ERROR_KINDS as readonly string[]).includes(kind);

/**
 * The remote backend: render() writes a task row for workers and waits for it to end. News
 * comes from the route handlers of this process at once, and from the database every
 * `pollMs` (another API process, a lease that ran out).
 */
export function createRemoteBackend(opts: RemoteBackendOptions): ComputeBackend {
  const { tasks } = opts;
  let closed = false;
  /** Ends each waiting render; close() calls them so no poll outlives the backend. */
  const waiting = new Set<(err: Error) => void>();

  function render(req: Parameters<ComputeBackend['render']>[0]): Promise<RenderResult> {
    if (closed) return Promise.reject(new Error('the remote backend is closed'));
    if (req.signal.aborted) return Promise.reject(abortError());
    let task: TaskRow;
    try {
      task = tasks.create({ jobId: req.jobId, render: storedRender(req), outputPath: req.outputPath });
    } catch (err) {
      return Promise.reject(err);
    }

    return new Promise<RenderResult>((resolve, reject) => {
      let settled = false;
      let progress = '';
      let graceTimer: NodeJS.Timeout | undefined;
      const poll = setInterval(check, opts.pollMs);
      poll.unref();
      const offChange = tasks.onChange(task.id, check);
      const onAbort = () => {
        tasks.cancel(task.id, 'the render was aborted');
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

      function check() {
        if (settled) return;
        tasks.expireIfExhausted(task.id);
        const row = tasks.get(task.id);
        if (!row) return settle(() => reject(new Error('the render task disappeared')));
        relayProgress(row);
        switch (row.status) {
          case 'done': {
            const result: RenderResult = { metadata: JSON.parse(row.metadata!) as RenderMetadata, faceIds: JSON.parse(row.face_ids!) as number[] };
            // The accepted attempt's own upload becomes the output; stale uploads of other attempts stay where they are.
            return settle(() => rename(uploadPathOf(row), req.outputPath).then(() => resolve(result), reject));
          }
          case 'failed':
            return settle(() =>
              reject(
                row.error_kind && isRenderErrorKind(row.error_kind)
                  ? new RenderError(row.error_kind, row.error ?? 'The render failed')
                  : new Error(`remote render failed after ${row.attempts} attempt(s): ${row.error ?? 'unknown reason'}`),
              ),
            );
          case 'cancelled':
            graceTimer ??= setTimeout(() => settle(() => reject(new Error(`the render task was cancelled: ${row.error ?? ''}`))), opts.cancelGraceMs);
            return;
          default:
            return;
        }
      }
    });
  }

  return {
    name: 'remote',
    render,
    async close() {
      closed = true;
      tasks.stopClaims();
      for (const abandon of [...waiting]) abandon(new Error('the remote backend is closed'));
    },
  };
}
