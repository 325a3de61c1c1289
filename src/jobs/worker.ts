import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Job, JobQueue } from './queue.ts';
import type { Logger } from '../log.ts';

export interface JobContext {
  signal: AbortSignal;
  /** true on the job's last allowed attempt: a handler may then record a final failure itself. */
  lastAttempt: boolean;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface WorkerOptions {
  queue: JobQueue;
  handlers: Record<string, JobHandler>;
  /** Called once when a job has used all its attempts (or crashed that often); marks the resource failed. */
  onExhausted: (job: Job, reason: string) => void;
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  log: Logger;
  /** Delay before retry n (1-based). */
  backoffMs?: (attempt: number) => number;
}

export interface Worker {
  readonly owner: string;
  start(): void;
  /** Stops claiming; waits up to `graceMs` for running jobs, then aborts and releases them. */
  stop(graceMs: number): Promise<void>;
  /** Claims and runs due jobs until none is left (tests). */
  drain(): Promise<void>;
}

const HOST = hostname();

export function newOwnerId(): string {
  return `${HOST}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** A lease owner is dead when it names a process of this host that no longer exists. */
export function ownerIsAlive(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== HOST || !Number.isInteger(pid) || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class Aborted extends Error {}

export function createWorker(opts: WorkerOptions): Worker {
  const owner = newOwnerId();
  const active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const backoff = opts.backoffMs ?? ((n) => Math.min(60_000, 2000 * 2 ** (n - 1)));
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  async function runJob(job: Job, controller: AbortController): Promise<void> {
    const { queue, log } = opts;
    const heartbeat = setInterval(() => {
      if (!queue.renew(job.id, owner, opts.leaseMs)) controller.abort(new Aborted('lease lost or job cancelled'));
    }, Math.max(50, Math.floor(opts.leaseMs / 3)));
    heartbeat.unref();
    const handler = opts.handlers[job.kind];
    try {
      if (job.attempts > job.maxAttempts) {
        opts.onExhausted(job, 'the job was interrupted too many times');
        queue.fail(job.id, owner, 'attempts exhausted');
        return;
      }
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job, { signal: controller.signal, lastAttempt: job.attempts >= job.maxAttempts });
      queue.complete(job.id, owner);
    } catch (err) {
      if (controller.signal.aborted) {
        queue.release(job.id, owner);
        log.info('job released', { job_id: job.id, kind: job.kind });
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      log.warn('job attempt failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, error: reason });
      if (job.attempts >= job.maxAttempts) {
        opts.onExhausted(job, reason);
        queue.fail(job.id, owner, reason);
      } else {
        queue.fail(job.id, owner, reason, backoff(job.attempts));
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  function fill(): void {
    while (running && active.size < opts.concurrency) {
      let job: Job | null;
      try {
        job = opts.queue.claim(owner, opts.leaseMs);
      } catch (err) {
        opts.log.error('job claim failed', { error: (err as Error).message });
        return;
      }
      if (!job) return;
      const controller = new AbortController();
      const entry = { controller, done: Promise.resolve() };
      active.set(job.id, entry);
      const claimed = job;
      entry.done = runJob(claimed, controller).finally(() => {
        active.delete(claimed.id);
        wake?.();
      });
    }
  }

  function loop(): void {
    if (!running) return;
    fill();
    timer = setTimeout(loop, opts.pollMs);
    timer.unref();
  }

  return {
    owner,
    start() {
      if (running) return;
      running = true;
      const released = opts.queue.releaseOrphans(ownerIsAlive);
      if (released > 0) opts.log.info('released jobs of dead processes', { count: released });
      wake = () => {
        if (running) fill();
      };
      loop();
    },
    async stop(graceMs) {
      running = false;
      if (timer) clearTimeout(timer);
      const pending = [...active.values()];
      if (pending.length === 0) return;
      const all = Promise.all(pending.map((p) => p.done));
      let graceTimer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        all.then(() => false),
        new Promise<boolean>((r) => (graceTimer = setTimeout(() => r(true), graceMs))),
      ]);
      clearTimeout(graceTimer);
      if (timedOut) {
        for (const p of active.values()) p.controller.abort(new Aborted('shutting down'));
        await all;
      }
    },
    async drain() {
      const wasRunning = running;
      running = true;
      try {
        for (;;) {
          fill();
          if (active.size === 0) return;
          await Promise.race([...active.values()].map((p) => p.done));
        }
      } finally {
        running = wasRunning;
      }
    },
  };
}
