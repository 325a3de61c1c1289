import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { RENDER, claimAllAtOnce } from '../claims.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const job = (resourceId: string) => ({ kind: 'test.kind', resourceId, userId: 'usr_1', maxAttempts: 3 });

/** The job table and its leases (src/jobs/README.md). */
export function contract(dialect: Dialect): void {
  it('two connections claiming at once never take the same job, and together take them all', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const ids = new Set(await Promise.all(Array.from({ length: 40 }, (_, i) => a.stores.jobs.enqueue(job(`r${i}`)))));
      const got = await claimAllAtOnce([a, b, a, b].map((s, i) => () => s.stores.jobs.claim(`owner-${i}`, 60_000)));
      expect(got).toHaveLength(ids.size);
      expect(new Set(got)).toEqual(ids);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a live lease is not reclaimed; an expired one is, and then only the new owner may finish the job', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const id = await a.stores.jobs.enqueue(job('r1'));
      expect((await a.stores.jobs.claim('A', 5))?.id).toBe(id);
      await sleep(30);
      const again = await b.stores.jobs.claim('B', 60_000);
      expect(again).toMatchObject({ id, attempts: 2, leaseOwner: 'B' });
      expect(await b.stores.jobs.claim('C', 60_000)).toBeNull();
      // The first owner lost it: no renew, no complete, no fail.
      expect(await a.stores.jobs.renew(id, 'A', 60_000)).toBe(false);
      expect(await a.stores.jobs.complete(id, 'A')).toBe(false);
      expect(await a.stores.jobs.fail(id, 'A', 'late')).toBe(false);
      expect(await b.stores.jobs.complete(id, 'B')).toBe(true);
      expect((await a.stores.jobs.get(id))?.status).toBe('done');
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('release gives the attempt back; a retry waits for its time; a final failure stays failed', async () => {
    const a = await dialect.open();
    try {
      const id = await a.stores.jobs.enqueue(job('r1'));
      await a.stores.jobs.claim('A', 60_000);
      expect(await a.stores.jobs.release(id, 'A')).toBe(true);
      expect((await a.stores.jobs.claim('B', 60_000))?.attempts).toBe(1);
      expect(await a.stores.jobs.fail(id, 'B', 'boom', 60_000)).toBe(true);
      expect(await a.stores.jobs.claim('C', 60_000)).toBeNull();
      const other = await a.stores.jobs.enqueue(job('r2'));
      await a.stores.jobs.claim('D', 60_000);
      expect(await a.stores.jobs.fail(other, 'D', 'bad input')).toBe(true);
      expect(await a.stores.jobs.get(other)).toMatchObject({ status: 'failed', lastError: 'bad input' });
    } finally {
      await a.close();
    }
  });

  it('a job parked on a compute task is woken by its end, seen from another connection', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const id = await a.stores.jobs.enqueue(job('r1'));
      await a.stores.jobs.claim('A', 60_000);
      const task = await a.stores.computeTasks.create({ jobId: id, request: RENDER, outputPath: '/tmp/x.mp4' });
      expect(await a.stores.jobs.park(id, 'A', 3_600_000)).toBe('waiting');
      expect(await a.stores.jobs.get(id)).toMatchObject({ status: 'waiting', leaseOwner: null, waitingOn: task.id, attempts: 0 });
      expect(await b.stores.jobs.claim('B', 60_000)).toBeNull();
      const leased = (await b.stores.computeTasks.claim({ id: 'wkr_1', name: 'w', label: 'w' }))!;
      expect(await b.stores.computeTasks.fail(leased.id, leased.lease!, 'wkr_1', 'FaceError', 'no face')).toBe('failed');
      expect((await a.stores.jobs.claim('C', 60_000))?.id).toBe(id);
    } finally {
      await b.close();
      await a.close();
    }
  });
}
