import { expect, it } from 'vitest';
import type { Dialect, OpenStores } from '../dialects.ts';
import { RENDER, claimAllAtOnce } from '../claims.ts';
import { storeMakers } from '../../../src/platform/stores.ts';

const render = RENDER;
const worker = (id: string) => ({ id, name: id, label: id });

const result = { metadata: { num_frames: 1 } as never, faceIds: [0], renderMs: 12 };

/** Compute tasks: claims, and changes that only the live lease may make. */
export function contract(dialect: Dialect): void {
  it('four processes claiming 100 tasks at once take each exactly once', async () => {
    const a = await dialect.open();
    const all = [a, await a.reopen(), await a.reopen(), await a.reopen()];
    try {
      const made = await Promise.all(Array.from({ length: 100 }, (_, i) => a.stores.computeTasks.create({ jobId: `job_${i}`, request: render, outputPath: `/tmp/${i}.mp4` })));
      const got = await claimAllAtOnce(all.map((s, i) => () => s.stores.computeTasks.claim(worker(`wkr_${i}`))));
      expect(got).toHaveLength(100);
      expect(new Set(got)).toEqual(new Set(made.map((t) => t.id)));
    } finally {
      for (const s of all.reverse()) await s.close();
    }
  });

  it('two processes completing and failing the same task at once: exactly one wins, and only an ending wakes the job', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const ends = [
        (s: OpenStores, id: string, lease: string) => s.stores.computeTasks.complete(id, lease, 'w', result),
        (s: OpenStores, id: string, lease: string) => s.stores.computeTasks.fail(id, lease, 'w', 'FaceError', 'no face'),
        (s: OpenStores, id: string, lease: string) => s.stores.computeTasks.fail(id, lease, 'w', null, 'worker crashed'),
      ];
      for (let round = 0; round < 9; round++) {
        const jobId = await a.stores.jobs.enqueue({ kind: 'test.kind', resourceId: `r${round}`, userId: 'usr_1', maxAttempts: 3 });
        await a.stores.jobs.claim('runner', 60_000);
        const task = await a.stores.computeTasks.create({ jobId, request: render, outputPath: `/tmp/${round}.mp4` });
        expect(await a.stores.jobs.park(jobId, 'runner', 3_600_000)).toBe('waiting');
        const t = (await b.stores.computeTasks.claim(worker('w')))!;
        expect(await b.stores.computeTasks.recordUpload(task.id, t.lease!, 10)).toBe(true);
        const [first, second] = [ends[round % 3]!, ends[(round + 1 + Math.floor(round / 3)) % 3]!];
        const answers = await Promise.all([first(a, task.id, t.lease!), second(b, task.id, t.lease!)]);
        const status = (await a.stores.computeTasks.get(task.id))!.status;
        // The winner's answer is the task's state; the loser is refused (or, a twin completion, told the same).
        const won = answers.filter((x) => x === 'done' || x === 'failed' || x === 'queued');
        expect(won.length === 1 || answers.every((x) => x === 'done')).toBe(true);
        expect(won[0]).toBe(status);
        // A task that ended woke its job; one requeued (a worker's failure with attempts left) did not.
        expect((await a.stores.jobs.get(jobId))?.status).toBe(status === 'queued' ? 'waiting' : 'queued');
        await a.stores.jobs.cancelFor(`r${round}`);
        await a.stores.computeTasks.cancel(task.id, 'round over');
      }
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('an expired lease is reclaimed by another process; the old lease changes nothing', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const task = await a.stores.computeTasks.create({ jobId: 'job_1', request: render, outputPath: '/tmp/1.mp4' });
      const old = (await a.stores.computeTasks.claim(worker('wkr_a')))!;
      expect(await b.stores.computeTasks.claim(worker('wkr_b'))).toBeNull();
      await a.rows(`UPDATE compute_tasks SET lease_until = lease_until - 3600000 WHERE id = $1`, [task.id]);
      const again = (await b.stores.computeTasks.claim(worker('wkr_b')))!;
      expect(again).toMatchObject({ id: task.id, attempts: 2, worker_id: 'wkr_b' });
      expect(await a.stores.computeTasks.heartbeat(task.id, old.lease!, 'wkr_a')).toBe('lease_lost');
      expect(await a.stores.computeTasks.recordUpload(task.id, old.lease!, 10)).toBe(false);
      expect(await a.stores.computeTasks.fail(task.id, old.lease!, 'wkr_a', null, 'late')).toBe('lease_lost');
      expect(await a.stores.computeTasks.current(task.id, again.lease!)).toMatchObject({ id: task.id });
      const beat = await b.stores.computeTasks.heartbeat(task.id, again.lease!, 'wkr_b', { done: 1, total: 2 });
      expect(beat).toMatchObject({ leaseUntil: expect.any(Number) });
    } finally {
      await b.close();
      await a.close();
    }
  });

  it.runIf(dialect.name === 'postgres')('leases follow the database clock: a process whose clock is an hour ahead sees a live lease', async () => {
    const a = await dialect.open();
    try {
      const ahead = storeMakers(a.stores.handle, { clock: { now: () => Date.now() + 3_600_000 } }).computeTasks();
      const task = await a.stores.computeTasks.create({ jobId: 'job_1', request: render, outputPath: '/tmp/1.mp4' });
      const t = (await a.stores.computeTasks.claim(worker('w')))!;
      expect(await ahead.claim(worker('other'))).toBeNull();
      expect(await ahead.current(task.id, t.lease!)).toMatchObject({ id: task.id });
      expect(await ahead.expireIfExhausted(task.id)).toBe(false);
      expect(await ahead.heartbeat(task.id, t.lease!, 'w')).toMatchObject({ leaseUntil: expect.any(Number) });
    } finally {
      await a.close();
    }
  });

  it('worker tokens: listed newest first, found by hash while active, revoked once', async () => {
    const a = await dialect.open();
    try {
      const tokens = a.stores.workerTokens;
      await tokens.insert('wkr_1', 'gpu-1', 'hash-1', 1000);
      await tokens.insert('wkr_2', 'gpu-2', 'hash-2', 2000);
      expect((await tokens.list()).map((w) => w.id)).toEqual(['wkr_2', 'wkr_1']);
      expect(await tokens.activeByHash('hash-1')).toEqual({ id: 'wkr_1', name: 'gpu-1', last_seen_at: null });
      await tokens.noteSeen('wkr_1', 3000);
      expect((await tokens.activeByHash('hash-1'))?.last_seen_at).toBe(3000);
      expect(await tokens.revoke('wkr_1', 4000)).toBe(true);
      expect(await tokens.revoke('wkr_1', 5000)).toBe(false);
      expect(await tokens.activeByHash('hash-1')).toBeUndefined();
      expect((await tokens.list()).find((w) => w.id === 'wkr_1')).toMatchObject({ revoked_at: 4000, last_seen_at: 3000, created_at: 1000 });
    } finally {
      await a.close();
    }
  });

  it('two connections claiming at once never take the same task', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 30; i++) ids.add((await a.stores.computeTasks.create({ jobId: `job_${i}`, request: render, outputPath: `/tmp/${i}.mp4` })).id);
      const got = await claimAllAtOnce([a, b, a, b].map((s, i) => () => s.stores.computeTasks.claim(worker(`wkr_${i}`))));
      expect(got).toHaveLength(ids.size);
      expect(new Set(got)).toEqual(ids);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a worker claims only the kinds it names; a task without a kind is an animation.render', async () => {
    const a = await dialect.open();
    try {
      const anim = await a.stores.computeTasks.create({ jobId: 'job_1', request: render, outputPath: '/tmp/1.mp4' });
      expect(anim.kind).toBe('animation.render');
      const other = await a.stores.computeTasks.create({ jobId: 'job_2', kind: 'avatar.train', request: render, outputPath: '/tmp/2.mp4' });
      expect(await a.stores.computeTasks.claim(worker('w'), ['clip.render'])).toBeNull();
      expect((await a.stores.computeTasks.claim(worker('w')))?.id).toBe(anim.id);
      expect((await a.stores.computeTasks.claim(worker('w'), ['avatar.train']))?.id).toBe(other.id);
    } finally {
      await a.close();
    }
  });

  it('completes only under the live lease of the worker that uploaded; a second connection sees the same answer', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const task = await a.stores.computeTasks.create({ jobId: 'job_1', request: render, outputPath: '/tmp/1.mp4' });
      const t = (await a.stores.computeTasks.claim(worker('wkr_a')))!;
      const result = { metadata: { num_frames: 1 } as never, faceIds: [0], renderMs: null };
      expect(await b.stores.computeTasks.complete(task.id, t.lease!, 'wkr_a', result)).toBe('result_missing');
      expect(await b.stores.computeTasks.recordUpload(task.id, t.lease!, 10)).toBe(true);
      expect(await b.stores.computeTasks.complete(task.id, t.lease!, 'wkr_other', result)).toBe('lease_lost');
      expect(await b.stores.computeTasks.complete(task.id, 'lse_not_the_lease_xxxxxx', 'wkr_a', result)).toBe('lease_lost');
      expect(await b.stores.computeTasks.complete(task.id, t.lease!, 'wkr_a', result)).toBe('done');
      // Its answer was lost: the same completion is answered the same way, and nothing else is accepted.
      expect(await a.stores.computeTasks.complete(task.id, t.lease!, 'wkr_a', result)).toBe('done');
      expect(await a.stores.computeTasks.fail(task.id, t.lease!, 'wkr_a', null, 'late')).toBe('lease_lost');
      expect((await a.stores.computeTasks.get(task.id))?.status).toBe('done');
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a failure is reported to its job once', async () => {
    const a = await dialect.open();
    try {
      const task = await a.stores.computeTasks.create({ jobId: 'job_1', request: render, outputPath: '/tmp/1.mp4' });
      const t = (await a.stores.computeTasks.claim(worker('w')))!;
      expect(await a.stores.computeTasks.fail(task.id, t.lease!, 'w', 'FaceError', 'no face')).toBe('failed');
      const b = await a.reopen();
      try {
        const [first, second] = await Promise.all([a.stores.computeTasks.takeFailure(task.id), b.stores.computeTasks.takeFailure(task.id)]);
        expect([first, second].filter(Boolean)).toHaveLength(1);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });
}
