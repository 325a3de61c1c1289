import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { RENDER, claimAllAtOnce } from '../claims.ts';

const render = RENDER;
const worker = (id: string) => ({ id, name: id, label: id });

/** Compute tasks: claims, and changes that only the live lease may make. */
export function contract(dialect: Dialect): void {
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
