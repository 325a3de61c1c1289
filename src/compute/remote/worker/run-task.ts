/**
 * One claimed task, whatever its kind: a scratch folder, its lease kept, its kind's executor
 * (src/compute/tasks/) run with the worker's context, and the fail call when it throws.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RenderError } from '../../../errors.ts';
import type { Logger } from '../../../log.ts';
import { WORKER_FAIL_KINDS, type ClaimedTask } from '../../../schemas/compute.ts';
import type { ComputeBackend } from '../../interface.ts';
import type { StreamRenderer } from '../../stream.ts';
import { taskOf } from '../../tasks/index.ts';
import type { WorkerContext, WorkerOutcome } from '../../tasks/task.ts';
import { downloadInput, uploadOutput } from './files.ts';
import { keepLease, TaskLost } from './lease.ts';
import { WorkerAuthError, type ServiceClient } from './service-client.ts';

const FAIL_KINDS = new Set<string>(WORKER_FAIL_KINDS);

export interface TaskRunnerDeps {
  service: ServiceClient;
  backend: ComputeBackend;
  streams: StreamRenderer | undefined;
  log: Logger;
  /** The worker's stop: the running task is aborted and given back. */
  stop: AbortSignal;
}

export async function runClaimedTask(deps: TaskRunnerDeps, task: ClaimedTask): Promise<WorkerOutcome> {
  const { service, log, stop } = deps;
  const taskPath = `/compute/v1/tasks/${encodeURIComponent(task.task_id)}`;
  const fields = { task_id: task.task_id, attempt: task.attempt };
  log.info('task claimed', fields);
  const times: { started: number; downloaded?: number; rendered?: number } = { started: performance.now() };
  const lease = keepLease(service, task, stop);
  const dir = await mkdtemp(join(tmpdir(), 'mimic-worker-'));
  const checkpoint = () => {
    if (lease.signal.aborted) throw lease.signal.reason;
  };
  const renderMs = () => (times.downloaded !== undefined && times.rendered !== undefined ? { render_ms: Math.round(times.rendered - times.downloaded) } : {});
  const ctx: WorkerContext = {
    backend: deps.backend,
    streams: deps.streams,
    log,
    dir,
    signal: lease.signal,
    checkpoint,
    async download(url, name, maxBytes) {
      checkpoint();
      return downloadInput(service, url, dir, name, maxBytes);
    },
    upload: (url, file, contentType) => uploadOutput(service, url, file, contentType),
    sameOrigin: (url) => service.sameOrigin(url),
    progress: (done, total) => lease.progress(done, total),
    async complete(body) {
      const res = await service.call(`${taskPath}/complete`, { lease: task.lease, ...body, ...renderMs() });
      if (res.status === 409) throw new TaskLost(String(res.json?.details?.reason ?? 'lease_lost'));
      if (res.status !== 200) throw new Error(`complete answered HTTP ${res.status}${res.json?.description ? `: ${res.json.description}` : ''}`);
    },
    mark: (step) => (times[step] = performance.now()),
  };
  try {
    // A claim answer without a kind comes from a server before kinds: an animation.render.
    const outcome = await taskOf(task.kind ?? '').worker.execute(task, ctx);
    if (outcome === 'completed' && times.downloaded !== undefined && times.rendered !== undefined) {
      const ms = (t: number) => Math.round(t);
      log.info('task done', { ...fields, download_ms: ms(times.downloaded - times.started), render_ms: ms(times.rendered - times.downloaded), upload_ms: ms(performance.now() - times.rendered) });
    }
    return outcome;
  } catch (err) {
    if (err instanceof TaskLost || lease.lost) {
      log.info('task lost', { ...fields, reason: lease.lost ?? (err as TaskLost).reason });
      return 'lost';
    }
    if (err instanceof WorkerAuthError) throw err;
    const inputFault = err instanceof RenderError && FAIL_KINDS.has(err.kind);
    const body = inputFault
      ? { lease: task.lease, kind: err.kind, description: err.description }
      : { lease: task.lease, description: stop.aborted ? 'the worker is shutting down' : `worker fault: ${(err as Error).message ?? String(err)}`.slice(0, 1000) };
    const res = await service.call(`${taskPath}/fail`, body).catch((e: Error) => ({ status: 0, json: { description: e.message } }));
    log.warn('task failed', { ...fields, kind: inputFault ? err.kind : null, answer: res.status, error: inputFault ? undefined : (err as Error).message });
    return res.status === 409 ? 'lost' : 'failed';
  } finally {
    lease.end();
    await rm(dir, { recursive: true, force: true });
  }
}
