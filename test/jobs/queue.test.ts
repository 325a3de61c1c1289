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
  it('hands a job to exactly one of two processes on the same file', async () => {
    const { open } = setup();
    const a = open();
    const b = open();
    a.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const first = await a.claim('A', 1000);
    const second = await b.claim('B', 1000);
    expect(first?.resourceId).toBe('r1');
    expect(second).toBeNull();
  });

  it('re-runs a job whose lease ran out (a dead worker), counting the attempt', async () => {
    const { clock, open } = setup();
    const q = open();
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
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
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    q.enqueue({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 });
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
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    q.cancelFor('r1');
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
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 2 });
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
    q.enqueue({ kind: 'slow', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    let aborted = false;
    const w = createWorker({
      queue: q,
      catalogue: catalogue({
        kind: 'slow',
        handler: (_job, ctx) =>
          new Promise((_resolve, reject) => {
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
    await new Promise((r) => setTimeout(r, 50));
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
    const id = q.enqueue({ kind: 'hang', resourceId: 'r1', userId: 'u', maxAttempts: 1 });
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
    const id = q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
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
    const first = q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    waits.waitOn(job.id, 'ctk_1', clock.now());
    waits.wake(job.id, 'ctk_1', clock.now());
    expect(await q.park(job.id, 'A', 60_000)).toBe('queued');
    expect((await q.claim('B', 1000))?.id).toBe(first);
    expect(await q.complete(first, 'B')).toBe(true);

    q.enqueue({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 });
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
    const id = q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = (await q.claim('A', 1000))!;
    waits.waitOn(job.id, 'ctk_1', clock.now());
    await q.park(job.id, 'A', 1);
    q.cancelFor('r1');
    clock.t += 10;
    expect(await q.claim('B', 1000)).toBeNull();
    expect((await q.get(id))?.status).toBe('cancelled');
  });
});
