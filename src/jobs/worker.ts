import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Job, JobQueue } from './store.ts';
import type { JobCatalogue } from './catalogue.ts';
import type { Logger } from '../log.ts';

export type { JobContext, JobHandler, JobOutcome } from './catalogue.ts';

export interface WorkerOptions {
  queue: JobQueue;
  catalogue: JobCatalogue;
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  log: Logger;
}

export interface Worker {
  readonly owner: string;
  start(): void;
  /** Stops claiming; waits up to `graceMs` for running jobs, then aborts and releases them. */
  stop(graceMs: number): Promise<void>;
  /** Claims and runs due jobs until none is left (tests); parked jobs are left waiting. */
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

/** The lease was lost or the runner is stopping: the job goes back, the attempt does not count. */
class Aborted extends Error {}
/** The run took longer than its kind allows: a failed attempt. */
class TimeLimit extends Error {}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function createWorker(opts: WorkerOptions): Worker {
  const owner = newOwnerId();
  const active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  async function exhausted(job: Job, reason: string): Promise<void> {
    try {
      await opts.catalogue.get(job.kind)?.onExhausted(job, reason);
    } finally {
      await opts.queue.fail(job.id, owner, reason);
    }
  }

  async function runJob(job: Job, controller: AbortController): Promise<void> {
    const { queue, log } = opts;
    const heartbeat = setInterval(() => {
      queue.renew(job.id, owner, opts.leaseMs).then(
        (ours) => ours || controller.abort(new Aborted('lease lost or job cancelled')),
        (err: unknown) => log.error('job lease renewal failed', { job_id: job.id, error: reasonOf(err) }),
      );
    }, Math.max(50, Math.floor(opts.leaseMs / 3)));
    heartbeat.unref();
    const kind = opts.catalogue.get(job.kind);
    // The catalogue is the policy: its attempts win over what was recorded when the job was queued.
    const maxAttempts = kind?.maxAttempts ?? job.maxAttempts;
    let limit: NodeJS.Timeout | undefined;
    try {
      if (job.attempts > maxAttempts) {
        await exhausted(job, 'the job was interrupted too many times');
        return;
      }
      if (!kind) throw new Error(`no handler for job kind ${job.kind}`);
      limit = setTimeout(() => controller.abort(new TimeLimit(`the job ran longer than ${kind.timeLimitMs} ms`)), kind.timeLimitMs);
      limit.unref();
      const outcome = await kind.handler(job, { signal: controller.signal, lastAttempt: job.attempts >= maxAttempts });
      if (outcome) {
        const parked = await queue.park(job.id, owner, outcome.wait.recheckMs);
        log.info('job waiting', { job_id: job.id, kind: job.kind, status: parked ?? 'lease lost' });
      } else {
        await queue.complete(job.id, owner);
      }
    } catch (err) {
      const signalled = controller.signal.aborted ? (controller.signal.reason as unknown) : undefined;
      if (signalled instanceof Aborted) {
        await queue.release(job.id, owner);
        log.info('job released', { job_id: job.id, kind: job.kind });
        return;
      }
      const reason = signalled instanceof TimeLimit ? signalled.message : reasonOf(err);
      log.warn('job attempt failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, error: reason });
      if (!kind || job.attempts >= maxAttempts) await exhausted(job, reason);
      else await queue.fail(job.id, owner, reason, kind.backoffMs(job.attempts));
    } finally {
      clearInterval(heartbeat);
      clearTimeout(limit);
    }
  }

  async function claimNext(): Promise<Job | null> {
    try {
      return await opts.queue.claim(owner, opts.leaseMs);
    } catch (err) {
      opts.log.error('job claim failed', { error: reasonOf(err) });
      return null;
    }
  }

  /** One claim at a time, so `active.size` never overshoots the concurrency. */
  let filling: Promise<number> | undefined;
  /** Claims until the slots are full or nothing is due; resolves with how many jobs it started. */
  function fill(): Promise<number> {
    filling ??= (async () => {
      let started = 0;
      while (running && active.size < opts.concurrency) {
        const job = await claimNext();
        if (!job) return started;
        started++;
        const controller = new AbortController();
        const entry = { controller, done: Promise.resolve() };
        active.set(job.id, entry);
        entry.done = runJob(job, controller)
          .catch((err: unknown) => opts.log.error('job bookkeeping failed', { job_id: job.id, error: reasonOf(err) }))
          .finally(() => {
            active.delete(job.id);
            wake?.();
          });
      }
      return started;
    })().finally(() => (filling = undefined));
    return filling;
  }

  function loop(): void {
    if (!running) return;
    void fill().finally(() => {
      if (!running) return;
      timer = setTimeout(loop, opts.pollMs);
      timer.unref();
    });
  }

  return {
    owner,
    start() {
      if (running) return;
      running = true;
      wake = () => {
        if (running) void fill();
      };
      void opts.queue.releaseOrphans(ownerIsAlive).then(
        (released) => {
          if (released > 0) opts.log.info('released jobs of dead processes', { count: released });
          loop();
        },
        (err: unknown) => {
          opts.log.error('releasing orphaned jobs failed', { error: reasonOf(err) });
          loop();
        },
      );
    },
    async stop(graceMs) {
      running = false;
      if (timer) clearTimeout(timer);
      await filling;
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
          const started = await fill();
          if (active.size === 0) {
            if (started === 0) return;
            continue;
          }
          await Promise.race([...active.values()].map((p) => p.done));
        }
      } finally {
        running = wasRunning;
      }
    },
  };
}
