/**
 * A compute worker: claims tasks from a mimic service over the worker protocol
 * (docs/compute-protocol.md), runs them with a ComputeBackend (the `worker` command uses
 * the local CPU renderer), and reports back. One task at a time. This file is the claim
 * loop; the rest of the worker is one file per job:
 *
 * | file | what |
 * |---|---|
 * | `service-client.ts` | the server URL, the guarded client, the token-authenticated calls |
 * | `lease.ts` | heartbeats and the task's abort when its lease is lost |
 * | `files.ts` | input downloads and output uploads, on the server's origin only |
 * | `run-task.ts` | one task: its kind's executor (src/compute/tasks/), fail on error |
 * | `stream-socket.ts` | a `stream.render` task's socket |
 */
import type { GuardedClient } from '../../../egress/client.ts';
import type { Logger } from '../../../log.ts';
import { validate } from '../../../schemas/ajv.ts';
import { ClaimedTask } from '../../../schemas/compute.ts';
import type { ComputeBackend } from '../../interface.ts';
import type { StreamRenderer } from '../../stream.ts';
import { TASKS } from '../../tasks/index.ts';
import { runClaimedTask } from './run-task.ts';
import { serviceClient, WORKER_VERSION, WorkerAuthError, type ServiceClient } from './service-client.ts';

export { parseServerUrl, workerClient, WorkerAuthError } from './service-client.ts';

export interface RemoteWorkerOptions {
  /** The service's base URL, as its operator publishes it (MIMIC_PUBLIC_URL). */
  server: string;
  token: string;
  backend: ComputeBackend;
  /** Renders live streams (`stream.render` tasks); absent: the worker claims no streams. */
  streams?: StreamRenderer;
  /** Shown in the task table and logs; several processes may share one token under different names. */
  name?: string;
  /** Handle one task, then return. */
  once?: boolean;
  /** Stop: claim nothing more, abort the running render and give its task back (fail without kind). */
  signal?: AbortSignal;
  /** Default: a guarded client that may reach the server's host only. */
  client?: GuardedClient;
  log: Logger;
  /** Long-poll length of a claim (ms). */
  waitMs?: number;
}

export interface WorkerSummary {
  completed: number;
  failed: number;
  lost: number;
}

const isClaimedTask = (value: unknown): value is ClaimedTask => {
  try {
    validate(ClaimedTask, value);
    return true;
  } catch {
    return false;
  }
};
const backoffMs = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));

async function giveBack(service: ServiceClient, task: { task_id: string; lease: string }, description = 'the worker is shutting down') {
  await service.call(`/compute/v1/tasks/${encodeURIComponent(task.task_id)}/fail`, { lease: task.lease, description }).catch(() => undefined);
}

export async function runRemoteWorker(opts: RemoteWorkerOptions): Promise<WorkerSummary> {
  const service = serviceClient(opts);
  const { log, backend } = opts;
  const stop = opts.signal ?? new AbortController().signal;
  const waitMs = opts.waitMs ?? 20_000;
  const summary: WorkerSummary = { completed: 0, failed: 0, lost: 0 };
  const stopped = new Promise<'stopped'>((resolve) => (stop.aborted ? resolve('stopped') : stop.addEventListener('abort', () => resolve('stopped'), { once: true })));
  const sleep = (ms: number) => Promise.race([new Promise((r) => setTimeout(r, ms).unref()), stopped]);
  // Every kind of the catalogue this worker has the parts for.
  const kinds = TASKS.filter((t) => t.worker.claims({ streams: opts.streams })).map((t) => t.kind);

  async function claim(): Promise<ClaimedTask | null | 'stopped'> {
    const pending = service.call('/compute/v1/claim', { worker: { name: opts.name, version: WORKER_VERSION, backend: backend.name }, wait_ms: waitMs, kinds }, waitMs + 15_000);
    const res = await Promise.race([pending, stopped]);
    if (res === 'stopped') {
      // The claim may still bring a task: give it straight back so another worker takes it.
      pending.then((late) => (late.status === 200 && late.json?.lease ? giveBack(service, late.json) : undefined)).catch(() => undefined);
      return 'stopped';
    }
    if (res.status === 204) return null;
    if (res.status !== 200) throw new Error(`claim answered HTTP ${res.status}`);
    if (!isClaimedTask(res.json)) {
      if (res.json?.task_id && res.json?.lease) await giveBack(service, res.json, 'the worker could not read the task');
      throw new Error('the claimed task does not have the protocol shape');
    }
    return res.json;
  }

  let failures = 0;
  while (!stop.aborted) {
    let task: ClaimedTask | null | 'stopped';
    try {
      task = await claim();
      failures = 0;
    } catch (err) {
      if (err instanceof WorkerAuthError) throw err;
      failures++;
      log.warn('claim failed', { error: (err as Error).message, retry_in_ms: backoffMs(failures) });
      await sleep(backoffMs(failures));
      continue;
    }
    if (task === 'stopped') break;
    if (task === null) continue;
    const outcome = await runClaimedTask({ service, backend, streams: opts.streams, log, stop }, task);
    summary[outcome]++;
    if (opts.once) break;
  }
  return summary;
}
