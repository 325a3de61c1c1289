import { expect, it } from 'vitest';
import type { Dialect, OpenStores } from '../dialects.ts';
import { RENDER, claimAllAtOnce } from '../claims.ts';
import { storeMakers } from '../../../src/platform/stores.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const job = (resourceId: string) => ({ kind: 'test.kind', resourceId, userId: 'usr_1', maxAttempts: 3 });

/** `a` and three more connections to its database: four processes. */
const fourOf = async (a: OpenStores) => [a, await a.reopen(), await a.reopen(), await a.reopen()];
const closeAll = async (all: OpenStores[]) => {
  for (const s of all.reverse()) await s.close();
};

/** The job table and its leases (src/jobs/README.md). */
export function contract(dialect: Dialect): void {
  it('four processes claiming 400 jobs at once take each exactly once', async () => {
    const all = await fourOf(await dialect.open());
    try {
      const ids = new Set(await Promise.all(Array.from({ length: 400 }, (_, i) => all[0]!.stores.jobs.enqueue(job(`r${i}`)))));
      const got = await claimAllAtOnce(all.map((s, i) => () => s.stores.jobs.claim(`owner-${i}`, 60_000)));
      expect(got).toHaveLength(400);
      expect(new Set(got)).toEqual(ids);
    } finally {
      await closeAll(all);
    }
  });

  it('expired leases are reclaimed by four processes at once, each job once, the attempt counted', async () => {
    const all = await fourOf(await dialect.open());
    try {
      const ids = new Set(await Promise.all(Array.from({ length: 40 }, (_, i) => all[0]!.stores.jobs.enqueue(job(`r${i}`)))));
      for (let i = 0; i < 40; i++) expect(await all[0]!.stores.jobs.claim('gone', 60_000)).not.toBeNull();
      // The process that took them died an hour ago: its leases ran out long since.
      await all[0]!.rows(`UPDATE jobs SET lease_until = lease_until - 3600000 WHERE lease_owner = $1`, ['gone']);
      const got: Array<{ id: string; attempts: number }> = [];
      await claimAllAtOnce(
        all.map((s, i) => async () => {
          const j = await s.stores.jobs.claim(`owner-${i}`, 60_000);
          if (j) got.push(j);
          return j;
        }),
      );
      expect(new Set(got.map((j) => j.id))).toEqual(ids);
      expect(got).toHaveLength(40);
      expect(got.every((j) => j.attempts === 2)).toBe(true);
      expect(await all[0]!.stores.jobs.complete(got[0]!.id, 'gone')).toBe(false);
    } finally {
      await closeAll(all);
    }
  });

  it('two processes finishing, failing or releasing the same job at once: exactly one wins', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const ends = [
        (s: OpenStores, id: string) => s.stores.jobs.complete(id, 'A'),
        (s: OpenStores, id: string) => s.stores.jobs.fail(id, 'A', 'gave up'),
        (s: OpenStores, id: string) => s.stores.jobs.fail(id, 'A', 'again later', 60_000),
        (s: OpenStores, id: string) => s.stores.jobs.release(id, 'A'),
      ];
      for (let round = 0; round < 16; round++) {
        const id = await a.stores.jobs.enqueue(job(`r${round}`));
        expect((await a.stores.jobs.claim('A', 60_000))?.id).toBe(id);
        const [first, second] = [ends[round % 4]!, ends[(round + 1 + Math.floor(round / 4)) % 4]!];
        const won = await Promise.all([first(a, id), second(b, id)]);
        expect(won.filter(Boolean)).toHaveLength(1);
        // Whatever won, the job holds no lease and A may change it no more.
        expect((await b.stores.jobs.get(id))?.leaseOwner).toBeNull();
        expect(await a.stores.jobs.renew(id, 'A', 60_000)).toBe(false);
        await a.stores.jobs.cancelFor(`r${round}`);
      }
    } finally {
      await b.close();
      await a.close();
    }
  });

  it.runIf(dialect.name === 'postgres')('leases and due times follow the database clock: processes whose clocks disagree agree', async () => {
    const a = await dialect.open();
    try {
      const hourAhead = storeMakers(a.stores.handle, { clock: { now: () => Date.now() + 3_600_000 } }).jobs();
      const hourBehind = storeMakers(a.stores.handle, { clock: { now: () => Date.now() - 3_600_000 } }).jobs();
      // Queued by a clock an hour ahead, the job is due at once for the others.
      const id = await hourAhead.enqueue(job('r1'));
      expect((await hourBehind.claim('behind', 60_000))?.id).toBe(id);
      // A minute's lease is live for the process an hour ahead, too.
      expect(await hourAhead.claim('ahead', 60_000)).toBeNull();
      expect(await hourAhead.renew(id, 'behind', 60_000)).toBe(true);
      expect(await hourAhead.fail(id, 'behind', 'later', 60_000)).toBe(true);
      // A retry a minute away is not due for either.
      expect(await hourAhead.claim('ahead', 60_000)).toBeNull();
      expect(await hourBehind.claim('behind', 60_000)).toBeNull();
    } finally {
      await a.close();
    }
  });

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
