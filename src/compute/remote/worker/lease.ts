/**
 * A claimed task's lease: heartbeats every lease_ms/3 with the latest progress, and the task's
 * abort when the service says it is no longer ours (409: lease_lost, cancelled) or the token
 * was refused.
 */
import { WorkerAuthError, type ServiceClient } from './service-client.ts';

/** A call the service answered 409: the task is no longer ours. */
export class TaskLost extends Error {
  constructor(readonly reason: string) {
    super(`task lost: ${reason}`);
  }
}

export interface Lease {
  /** Aborted when the task is lost (its reason a TaskLost) or `stop` fires. */
  readonly signal: AbortSignal;
  /** Why the task was lost, or null. */
  readonly lost: string | null;
  progress(done: number, total: number): void;
  /** Stops the heartbeats. */
  end(): void;
}

export function keepLease(service: ServiceClient, task: { task_id: string; lease: string; lease_ms: number }, stop: AbortSignal): Lease {
  const taskPath = `/compute/v1/tasks/${encodeURIComponent(task.task_id)}`;
  const controller = new AbortController();
  const onStop = () => controller.abort(new Error('the worker is shutting down'));
  stop.addEventListener('abort', onStop, { once: true });
  let lost: string | null = null;
  let progress: { done: number; total: number } | undefined;
  let beating = false;
  const loseTask = (reason: string) => {
    lost ??= reason;
    controller.abort(new TaskLost(reason));
  };
  const beat = async () => {
    if (beating || lost) return;
    beating = true;
    try {
      const res = await service.call(`${taskPath}/heartbeat`, { lease: task.lease, ...(progress ? { progress } : {}) }, 10_000);
      if (res.status === 409) loseTask(String(res.json?.details?.reason ?? 'lease_lost'));
    } catch (err) {
      if (err instanceof WorkerAuthError) loseTask('token_refused');
      // A network failure: the next beat tries again (the lease may run out meanwhile).
    } finally {
      beating = false;
    }
  };
  const heartbeat = setInterval(() => void beat(), Math.max(100, Math.floor(task.lease_ms / 3)));
  return {
    signal: controller.signal,
    get lost() {
      return lost;
    },
    progress: (done, total) => (progress = { done, total }),
    end() {
      clearInterval(heartbeat);
      stop.removeEventListener('abort', onStop);
    },
  };
}
