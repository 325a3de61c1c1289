import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/db/client.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
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
    return createJobQueue(store.sqlite, clock, randomId);
  };
  return { clock, open };
}

describe('job queue', () => {
  it('hands a job to exactly one of two processes on the same file', () => {
    const { open } = setup();
    const a = open();
    const b = open();
    a.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const first = a.claim('A', 1000);
    const second = b.claim('B', 1000);
    expect(first?.resourceId).toBe('r1');
    expect(second).toBeNull();
  });

  it('re-runs a job whose lease ran out (a dead worker), counting the attempt', () => {
    const { clock, open } = setup();
    const q = open();
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    expect(q.claim('A', 1000)?.attempts).toBe(1);
    clock.t += 999;
    expect(q.claim('B', 1000)).toBeNull();
    clock.t += 2;
    const again = q.claim('B', 1000);
    expect(again?.attempts).toBe(2);
    // The dead owner can no longer renew or complete it.
    expect(q.renew(again!.id, 'A', 1000)).toBe(false);
    expect(q.renew(again!.id, 'B', 1000)).toBe(true);
  });

  it('releases jobs of dead processes at once, and keeps those of live ones', () => {
    const { open } = setup();
    const q = open();
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    q.enqueue({ kind: 'k', resourceId: 'r2', userId: 'u', maxAttempts: 3 });
    q.claim('host:1:dead', 60_000);
    q.claim('host:2:alive', 60_000);
    expect(q.releaseOrphans((owner) => owner.endsWith('alive'))).toBe(1);
    expect(q.claim('C', 1000)?.resourceId).toBe('r1');
  });

  it('knows a live process from a dead one', () => {
    expect(ownerIsAlive(`${hostname()}:${process.pid}:x`)).toBe(true);
    expect(ownerIsAlive(`${hostname()}:999999999:x`)).toBe(false);
    expect(ownerIsAlive('another-host:1:x')).toBe(true);
  });

  it('cancels a job so that its worker loses it', () => {
    const { open } = setup();
    const q = open();
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 3 });
    const job = q.claim('A', 1000)!;
    q.cancelFor('r1');
    expect(q.renew(job.id, 'A', 1000)).toBe(false);
  });
});

describe('worker', () => {
  it('retries a failing handler, then reports the job exhausted', async () => {
    const { open } = setup(Date.now());
    const q = open();
    q.enqueue({ kind: 'k', resourceId: 'r1', userId: 'u', maxAttempts: 2 });
    let calls = 0;
    const exhausted: string[] = [];
    const w = createWorker({
      queue: q,
      handlers: {
        k: async () => {
          calls++;
          throw new Error('boom');
        },
      },
      onExhausted: (job, reason) => exhausted.push(`${job.resourceId}:${reason}`),
      concurrency: 1,
      leaseMs: 1000,
      pollMs: 10,
      log: silentLogger,
      backoffMs: () => -1,
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
      handlers: {
        slow: (_job, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              reject(ctx.signal.reason);
            });
          }),
      },
      onExhausted: () => {},
      concurrency: 1,
      leaseMs: 1000,
      pollMs: 10,
      log: silentLogger,
    });
    w.start();
    await new Promise((r) => setTimeout(r, 50));
    await w.stop(50);
    expect(aborted).toBe(true);
    const again = q.claim('other', 1000);
    expect(again?.resourceId).toBe('r1');
    expect(again?.attempts).toBe(1);
  });
});
