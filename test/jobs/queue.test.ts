import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/db/client.ts';
import { createJobStore, jobStatements } from '../../src/jobs/store.ts';
import { jobCatalogue, type JobKind } from '../../src/jobs/catalogue.ts';
import { createWorker, ownerIsAlive } from '../../src/jobs/worker.ts';
import { randomId } from '../../src/clock.ts';
import { hostname } from 'node:os';
import { silentLogger } from '../../src/log.ts';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function setup(start = 1_000_000) {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-jobs-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const clock = { t: start, now() { return this.t; } };
  const open = () => {
    const store = openStore(file);
    stores.push(store);
    return createJobStore(store, clock, randomId);
  };
  return { clock, open };
}

describe('job queue', () => {
  it('enqueueOnce queues one unfinished job per kind and resource across two processes, and again once it has ended', async () => {
    const { open } = setup();
    const a = open();
    const b = open();
    const first = await a.enqueueOnce({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    expect(await b.enqueueOnce({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 })).toBe(first);
    // Another kind, or another resource, is another job.
    expect(await b.enqueueOnce({ kind: 'other', resourceId: 'r1', userId: 'u', maxAttempts: 3 })).not.toBe(first);
    expect(await b.enqueueOnce({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 })).not.toBe(first);
    // Still unfinished while running.
    const claimed = await a.claim('A', 1000);
    expect(claimed?.id).toBe(first);
    expect(await b.enqueueOnce({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 })).toBe(first);
    await a.complete(first, 'A');
    const next = await b.enqueueOnce({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    expect(next).not.toBe(first);
    expect((await a.get(next))?.status).toBe('queued');
  });

  it('hands a job to exactly one of two processes on the same file', async () => {
    const { open } = setup();
    const a = open();
    const b = open();
    await a.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const first = await a.claim('A', 1000);
    const second = await b.claim('B', 1000);
    expect(first?.resourceId).toBe('r1');
    expect(second).toBeNull();
  });

  it('re-runs a job whose lease ran out (a dead worker), counting the attempt', async () => {
    const { clock, open } = setup();
    const q = open();
    await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    expect((await q.claim('A', 1000))?.attempts).toBe(1);
    clock.t += 999;
    expect(await q.claim('B', 1000)).toBeNull();
    clock.t += 2;
    const again = await q.claim('B', 1000);
    expect(again?.attempts).toBe(2);
    // The dead owner can no longer renew or complete it.
    expect(await q.renew(again!.id, 'A', 1000)).toBe(false);
    expect(await q.renew(again!.id, 'B', 1000)).toBe(true);
  });

  it('releases jobs of dead processes at once, and keeps those of live ones', async () => {
    const { open } = setup();
    const q = open();
    await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    await q.enqueue({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 });
    await q.claim('host:1:dead', 60_000);
    await q.claim('host:2:alive', 60_000);
    expect(await q.releaseOrphans((owner) => owner.endsWith('alive'))).toBe(1);
    expect((await q.claim('C', 1000))?.resourceId).toBe('r1');
  });

  it('knows a live process from a dead one', async () => {
    expect(ownerIsAlive(`${hostname()}:${process.pid}:x`)).toBe(true);
    expect(ownerIsAlive(`${hostname()}:999999999:x`)).toBe(false);
    expect(ownerIsAlive('another-host:1:x')).toBe(true);
  });

  it('cancels a job so that its worker loses it', async () => {
    const { open } = setup();
    const q = open();
    await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    await q.cancelFor('r1');
    expect(await q.renew(job.id, 'A', 1000)).toBe(false);
  });
});

function catalogue(kind: Partial<JobKind> & Pick<JobKind, 'kind' | 'handler'>) {
  return jobCatalogue([{ maxAttempts: 3, backoffMs: () => 0, timeLimitMs: 60_000, onExhausted: () => {}, ...kind }]);
}

describe('worker', () => {
  it('retries a failing handler, then reports the job exhausted', async () => {
    const { open } = setup(Date.now());
    const q = open();
    await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 2 });
    let calls = 0;
    const exhausted: string[] = [];
    const w = createWorker({
      queue: q,
      catalogue: catalogue({
        kind: 'k',
        handler: async () => {
          calls++;
          throw new Error('boom');
        },
        onExhausted: (job, reason) => void exhausted.push(`${job.resourceId}:${reason}`),
        backoffMs: () => -1,
        // The catalogue's attempts are the policy (the queued row's 2 agrees).
        maxAttempts: 2,
      }),
      concurrency: 1,
      leaseMs: 1000,
      pollMs: 10,
      log: silentLogger,
    });
    await w.drain();
    expect(calls).toBe(2);
    expect(exhausted).toEqual(['r1:boom']);
  });

  it('on stop, lets a job finish within the grace period, or aborts and releases it', async () => {
    const { open } = setup(Date.now());
    const q = open();
    await q.enqueue({ kind: 'slow', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    let aborted = false;
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const w = createWorker({
      queue: q,
      catalogue: catalogue({
        kind: 'slow',
        handler: (_job, ctx) =>
          new Promise((_resolve, reject) => {
            running();
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              reject(ctx.signal.reason);
            });
          }),
      }),
      concurrency: 1,
      leaseMs: 1000,
      pollMs: 10,
      log: silentLogger,
    });
    w.start();
    // Stop once the job runs (a fixed sleep let a loaded machine stop the worker before its claim).
    await started;
    await w.stop(50);
    expect(aborted).toBe(true);
    const again = await q.claim('other', 1000);
    expect(again?.resourceId).toBe('r1');
    expect(again?.attempts).toBe(1);
  });
});

describe('time limits and parked jobs', () => {
  it('aborts a run that exceeds the time limit of its kind and counts it as a failed attempt', async () => {
    const { open } = setup(Date.now());
    const q = open();
    const id = await q.enqueue({ kind: 'hang', resourceId: 'r1', userId: 'u', maxAttempts: 1 });
    const exhausted: string[] = [];
    const w = createWorker({
      queue: q,
      catalogue: catalogue({
        kind: 'hang',
        timeLimitMs: 30,
        handler: (_job, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
        onExhausted: (_job, reason) => void exhausted.push(reason),
      }),
      concurrency: 1,
      leaseMs: 10_000,
      pollMs: 10,
      log: silentLogger,
    });
    await w.drain();
    expect(exhausted).toEqual(['the job ran longer than 30 ms']);
    expect(await q.get(id)).toMatchObject({ status: 'failed', lastError: 'the job ran longer than 30 ms' });
  });

  it('parks a job without a lease or an attempt, and a wake makes it due at once', async () => {
    const { clock, open } = setup();
    const q = open();
    const store = stores.at(-1)!;
    const waits = jobStatements(store.sqlite);
    const id = await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    waits.waitOn(job.id, 'ctk_1', clock.now());
    expect(await q.park(job.id, 'A', 60_000)).toBe('waiting');
    expect(await q.get(id)).toMatchObject({ status: 'waiting', attempts: 0, leaseOwner: null, waitingOn: 'ctk_1' });
    // Not due until the recheck time, or a wake.
    expect(await q.claim('B', 1000)).toBeNull();
    expect(waits.wake(job.id, 'ctk_other', clock.now())).toBe(false);
    expect(waits.wake(job.id, 'ctk_1', clock.now())).toBe(true);
    const again = (await q.claim('B', 1000))!;
    expect(again).toMatchObject({ id, attempts: 1 });
    expect(await q.complete(again.id, 'A')).toBe(false); // not the owner any more
    expect(await q.complete(again.id, 'B')).toBe(true);
  });

  it('a wake that comes before the park leaves the job due, and a parked job is due again at its recheck time', async () => {
    const { clock, open } = setup();
    const q = open();
    const waits = jobStatements(stores.at(-1)!.sqlite);
    const first = await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    waits.waitOn(job.id, 'ctk_1', clock.now());
    waits.wake(job.id, 'ctk_1', clock.now());
    expect(await q.park(job.id, 'A', 60_000)).toBe('queued');
    expect((await q.claim('B', 1000))?.id).toBe(first);
    expect(await q.complete(first, 'B')).toBe(true);

    await q.enqueue({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 });
    const second = (await q.claim('C', 1000))!;
    waits.waitOn(second.id, 'ctk_2', clock.now());
    expect(await q.park(second.id, 'C', 5000)).toBe('waiting');
    clock.t += 4999;
    expect(await q.claim('D', 1000)).toBeNull();
    clock.t += 1;
    expect((await q.claim('D', 1000))?.id).toBe(second.id);
  });

  it('cancelling a resource cancels its parked job', async () => {
    const { clock, open } = setup();
    const q = open();
    const waits = jobStatements(stores.at(-1)!.sqlite);
    const id = await q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    waits.waitOn(job.id, 'ctk_1', clock.now());
    await q.park(job.id, 'A', 1);
    await q.cancelFor('r1');
    clock.t += 10;
    expect(await q.claim('B', 1000)).toBeNull();
    expect((await q.get(id))?.status).toBe('cancelled');
  });
});

describe('concurrency', () => {
  /** A handler that holds every job until `release()`, counting how many run at once. */
  function gate(expectTogether: number) {
    let running = 0;
    let peak = 0;
    const started: string[] = [];
    let open!: () => void;
    const released = new Promise<void>((r) => (open = r));
    let together!: () => void;
    const reachedTogether = new Promise<void>((r) => (together = r));
    const handler: JobKind['handler'] = async (job) => {
      started.push(job.resourceId);
      running++;
      peak = Math.max(peak, running);
      if (running >= expectTogether) together();
      await released;
      running--;
    };
    return { handler, release: open, reachedTogether, stats: () => ({ peak, started: started.length }) };
  }

  it('runs two jobs of a kind at the same time, and never more than the limit', async () => {
    const { open } = setup(Date.now());
    const q = open();
    for (let i = 1; i <= 5; i++) await q.enqueue({ kind: 'verify', resourceId: `r${i}`, userId: 'u', maxAttempts: 3 });
    const g = gate(2);
    const w = createWorker({ queue: q, catalogue: catalogue({ kind: 'verify', handler: g.handler }), concurrency: 2, leaseMs: 10_000, pollMs: 10, log: silentLogger });
    const drained = w.drain();
    // Both first jobs are inside the handler together (with one slot this would never resolve).
    await g.reachedTogether;
    expect(g.stats()).toEqual({ peak: 2, started: 2 });
    g.release();
    await drained;
    expect(g.stats()).toEqual({ peak: 2, started: 5 });
    expect(await q.claim('later', 1000)).toBeNull();
  });

  it('holds a limit of 3 with jobs of two kinds, and a limit of 1 runs them one by one', async () => {
    for (const limit of [1, 3]) {
      const { open } = setup(Date.now());
      const q = open();
      for (let i = 1; i <= 7; i++) await q.enqueue({ kind: i % 2 ? 'a' : 'b', resourceId: `r${i}`, userId: 'u', maxAttempts: 3 });
      const g = gate(limit);
      const w = createWorker({
        queue: q,
        catalogue: jobCatalogue([
          { kind: 'a', handler: g.handler, maxAttempts: 3, backoffMs: () => 0, timeLimitMs: 60_000, onExhausted: () => {} },
          { kind: 'b', handler: g.handler, maxAttempts: 3, backoffMs: () => 0, timeLimitMs: 60_000, onExhausted: () => {} },
        ]),
        concurrency: limit,
        leaseMs: 10_000,
        pollMs: 10,
        log: silentLogger,
      });
      const drained = w.drain();
      await g.reachedTogether;
      expect(g.stats()).toEqual({ peak: limit, started: limit });
      g.release();
      await drained;
      expect(g.stats()).toEqual({ peak: limit, started: 7 });
    }
  });
});

describe('the default concurrency', () => {
  it('is one job per core, 2 to 8, locally; 16 with the remote backend; MIMIC_WORKER_CONCURRENCY sets it', async () => {
    const { defaultWorkerConcurrency, loadConfig } = await import('../../src/config.ts');
    expect([1, 2, 4, 8, 64].map((cores) => defaultWorkerConcurrency('local', cores))).toEqual([2, 2, 4, 8, 8]);
    expect(defaultWorkerConcurrency('remote', 2)).toBe(16);
    const dir = mkdtempSync(join(tmpdir(), 'mimic-jobs-config-'));
    dirs.push(dir);
    const base = { MIMIC_DATA_DIR: dir, MIMIC_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(loadConfig(base).worker.concurrency).toBe(defaultWorkerConcurrency('local'));
    expect(loadConfig({ ...base, MIMIC_WORKER_CONCURRENCY: '5' }).worker.concurrency).toBe(5);
    expect(() => loadConfig({ ...base, MIMIC_WORKER_CONCURRENCY: '0' })).toThrow(/MIMIC_WORKER_CONCURRENCY/);
  });
});
