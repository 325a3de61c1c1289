import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { METADATA, fakeVideo, remoteFixture, type RemoteFixture } from './fixture.ts';
import { createComputeTasks } from '../../../src/compute/remote/task-store.ts';
import { openStore } from '../../../src/db/client.ts';
import { randomId } from '../../../src/clock.ts';
import { DEFAULT_LOGO_PATH } from '../../../src/compute/result-frame.ts';
import { sqliteOf } from '../../helpers/stores.ts';

let f: RemoteFixture;
beforeEach(async () => {
  f = await remoteFixture();
});
afterEach(async () => {
  await f.close();
});

const taskRow = (id: string) => sqliteOf(f.h.services.store).sqlite.prepare('SELECT * FROM compute_tasks WHERE id = ?').get(id) as any;

describe('claiming tasks', () => {
  it('names the task kind with its inputs and outputs, and offers a worker only the kinds it asks for', async () => {
    f.render();
    // A worker that names other kinds is offered nothing; one that names none gets animation.render.
    expect((await f.claim({ wait_ms: 0, kinds: ['clip.render'] })).status).toBe(204);
    expect((await f.claim({ wait_ms: 0, kinds: ['not a kind'] })).status).toBe(400);
    const t = (await f.claim({ wait_ms: 0 })).body;
    expect(t.kind).toBe('animation.render');
    // The inputs the task has (a bank driver and no overlay: no driver or overlay file), and its one output.
    expect(Object.keys(t.inputs).sort()).toEqual(['logo', 'source']);
    expect(t.inputs.source).toBe(t.render.source_url);
    expect(t.inputs.logo).toBe(t.render.logo.url);
    expect(t.outputs).toEqual({ result: t.result });
  });

  it('answers 204 when there is nothing to do, and a task with signed URLs when there is', async () => {
    const empty = await f.claim({ wait_ms: 50 });
    expect(empty.status).toBe(204);
    expect(empty.body).toBe('');
    // Unset worker fields may come as null; a wait beyond the bound is refused.
    expect((await f.claim({ worker: { name: null, version: null, backend: null }, wait_ms: 0 })).status).toBe(204);
    const tooLong = await f.claim({ wait_ms: 60_000 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details).toEqual([{ field: 'wait_ms', message: 'must be <= 25000' }]);

    f.render({ driver: { kind: 'bank', category: 'subtle', name: 'driver-03' }, face: { size: 200, top_left: [10, 20] } });
    const res = await f.claim({ worker: { name: 'gpu-1', version: '1.0.0', backend: 'test' }, wait_ms: 0 });
    expect(res.status).toBe(200);
    const t = res.body;
    expect(t).toMatchObject({
      task_id: expect.stringMatching(/^ctk_/),
      lease: expect.stringMatching(/^lse_/),
      lease_ms: 30000,
      attempt: 1,
      render: {
        result_format: 'mp4',
        mute: true,
        stitch: false,
        max_animated_faces: 1,
        face: { size: 200, top_left: [10, 20] },
        driver: { kind: 'bank', category: 'subtle', name: 'driver-03' },
        logo: { kind: 'default', url: expect.stringContaining('/files/logo?') },
        overlay_url: null,
      },
      result: { method: 'PUT', content_type: 'video/mp4', max_bytes: f.h.config.fetch.maxVideoBytes },
    });
    expect(new Date(t.lease_expires_at).getTime()).toBe(taskRow(t.task_id).lease_until);
    // The default logo is served like any input, so a worker needs no copy of the project's file.
    const logo = await fetch(t.render.logo.kind === 'default' ? t.render.logo.url : '');
    expect(Buffer.from(await logo.arrayBuffer()).equals(readFileSync(DEFAULT_LOGO_PATH))).toBe(true);
    for (const url of [t.render.source_url, t.result.upload_url]) {
      expect(url.startsWith(`${f.base}/compute/v1/tasks/${t.task_id}/files/`)).toBe(true);
      expect(new URL(url).searchParams.get('lease')).toBe(t.lease);
    }
    expect(taskRow(t.task_id)).toMatchObject({ status: 'leased', worker_id: f.workerId, worker_name: 'gpu-1', attempts: 1 });
    // The one task is taken: the next claim finds nothing.
    expect((await f.claim()).status).toBe(204);
    // A claim without a body takes defaults (and finds a new task at once).
    f.render();
    expect((await f.call('POST', '/compute/v1/claim', {})).status).toBe(200);
  });

  it('a waiting claim gets a task created while it waits', async () => {
    const listening = vi.spyOn(f.h.services.compute.tasks, 'onQueued');
    const waiting = f.claim({ wait_ms: 20_000 });
    // The task is created only once the claim is on the server, waiting for news.
    await expect.poll(() => listening.mock.calls.length).toBeGreaterThan(0);
    const r = f.render();
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(taskRow(res.body.task_id).job_id).toBe(r.req.jobId);
  });

  it('hands out the oldest task first and each task to one claim only', async () => {
    const jobs = [1, 2, 3].map(() => f.render().req.jobId);
    const claims = await Promise.all([1, 2, 3, 4].map(() => f.claim()));
    const got = claims.filter((c) => c.status === 200).map((c) => taskRow(c.body.task_id).job_id);
    expect(got.sort()).toEqual([...jobs].sort());
    expect(claims.filter((c) => c.status === 204)).toHaveLength(1);
  });

  it('a new render of the same job cancels the older task, and its worker hears of it', async () => {
    const first = f.render({ jobId: 'job_same' });
    const old = (await f.claim()).body;
    f.render({ jobId: 'job_same' });
    const beat = await f.call('POST', `/compute/v1/tasks/${old.task_id}/heartbeat`, { body: { lease: old.lease } });
    expect(beat.status).toBe(409);
    expect(beat.body.details).toEqual({ reason: 'cancelled' });
    expect(taskRow(old.task_id).status).toBe('cancelled');
    first.controller.abort();
    expect((await first.outcome).ok).toBe(false);
  });
});

describe('leases', () => {
  it('renews with a heartbeat, shows progress, and a run-out lease goes to the next worker as attempt 2', async () => {
    const r = f.render();
    const a = (await f.claim({ worker: { name: 'a' } })).body;
    const beat = await f.call('POST', `/compute/v1/tasks/${a.task_id}/heartbeat`, { body: { lease: a.lease, progress: { done: 40, total: 125 } } });
    expect(beat.status).toBe(200);
    expect(new Date(beat.body.lease_expires_at).getTime()).toBe(taskRow(a.task_id).lease_until);
    await expect.poll(() => r.progress.at(-1)).toEqual([40, 125]);

    // Not yet run out: nobody else can take it.
    f.clock.advance(29_000);
    expect((await f.claim()).status).toBe(204);
    f.clock.advance(1_000);
    const b = (await f.claim({ worker: { name: 'b' } })).body;
    expect(b.task_id).toBe(a.task_id);
    expect(b.attempt).toBe(2);
    expect(b.lease).not.toBe(a.lease);
    expect(taskRow(b.task_id)).toMatchObject({ worker_name: 'b', attempts: 2 });

    // The first worker comes back: its heartbeat and completion are refused, its file URLs are dead.
    const late = await f.call('POST', `/compute/v1/tasks/${a.task_id}/heartbeat`, { body: { lease: a.lease } });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ kind: 'ConflictError', details: { reason: 'lease_lost' } });
    expect((await f.upload(a.result.upload_url, fakeVideo())).status).toBe(403);
    expect((await f.call('GET', a.render.source_url, { token: null })).status).toBe(403);
    const lateDone = await f.call('POST', `/compute/v1/tasks/${a.task_id}/complete`, { body: { lease: a.lease, metadata: METADATA, face_ids: [0] } });
    expect(lateDone.status).toBe(409);
    expect(lateDone.body.details).toEqual({ reason: 'lease_lost' });

    // The second worker finishes; render() resolves with what it reported.
    expect((await f.finish(b)).status).toBe(200);
    const out = await r.result;
    expect(out).toEqual({ metadata: METADATA, faceIds: [0] });
    expect(readFileSync(r.req.outputPath)).toEqual(fakeVideo());
  });

  it('a lease that ran out is refused even before anyone else claims the task', async () => {
    f.render();
    const a = (await f.claim()).body;
    f.clock.advance(30_000);
    const beat = await f.call('POST', `/compute/v1/tasks/${a.task_id}/heartbeat`, { body: { lease: a.lease } });
    expect(beat.status).toBe(409);
    expect(beat.body.details).toEqual({ reason: 'lease_lost' });
  });

  it('after the last allowed attempt runs out, render() fails with a plain (retryable) error', async () => {
    const r = f.render();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const t = (await f.claim()).body;
      expect(t.attempt).toBe(attempt);
      f.clock.advance(30_000);
    }
    const out = await r.outcome;
    expect(out.ok).toBe(false);
    const err = (out as { error: Error }).error;
    expect(err.constructor).toBe(Error);
    expect(err.message).toMatch(/after 3 attempt/);
    expect((await f.claim()).status).toBe(204);
  });
});

describe('exactly once', () => {
  it('racing completions of one lease write the task once; another lease cannot complete it', async () => {
    const r = f.render();
    const t = (await f.claim()).body;
    expect((await f.upload(t.result.upload_url, fakeVideo())).status).toBe(204);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        f.call('POST', `/compute/v1/tasks/${t.task_id}/complete`, { body: { lease: t.lease, metadata: { ...METADATA, num_frames: 100 + n }, face_ids: [0] } }),
      ),
    );
    // A repeated completion of the same lease is answered as the first (its answer may have been lost)...
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // ...but only one of them was written, and render() resolved with that one.
    const row = taskRow(t.task_id);
    const out = await r.result;
    expect(out.metadata.num_frames).toBe(JSON.parse(row.metadata).num_frames);
    expect([101, 102, 103, 104, 105]).toContain(out.metadata.num_frames);
  });

  it('two API processes on one database: one compare-and-set wins, the other cannot overwrite', async () => {
    // A second connection to the same database file stands for a second API process.
    const other = openStore(f.h.config.databaseFile);
    try {
      const tasksB = createComputeTasks(other, f.clock, randomId, f.h.config.compute);
      const r = f.render();
      const t = (await f.claim()).body;
      expect((await f.upload(t.result.upload_url, fakeVideo())).status).toBe(204);
      const viaB = await tasksB.complete(t.task_id, t.lease, f.workerId, { metadata: { ...METADATA, num_frames: 7 } as never, faceIds: [0], renderMs: null });
      expect(viaB).toBe('done');
      const viaA = await f.call('POST', `/compute/v1/tasks/${t.task_id}/complete`, { body: { lease: t.lease, metadata: { ...METADATA, num_frames: 8 }, face_ids: [0] } });
      expect(viaA.status).toBe(200);
      // render() of process A learns of B's completion from the database, and B's report stands.
      expect((await r.result).metadata.num_frames).toBe(7);
      expect(JSON.parse(taskRow(t.task_id).metadata).num_frames).toBe(7);
    } finally {
      other.close();
    }
  });

  it('a stale worker uploading after the new lease completed leaves the accepted result alone', async () => {
    const r = f.render();
    const a = (await f.claim()).body;
    f.clock.advance(30_000);
    const b = (await f.claim()).body;
    expect((await f.finish(b)).status).toBe(200);
    await r.result;
    expect((await f.upload(a.result.upload_url, fakeVideo('isom', 4096))).status).toBe(403);
    expect(readFileSync(r.req.outputPath)).toHaveLength(2048);
    expect(existsSync(`${r.req.outputPath}.attempt-1`)).toBe(false);
  });
});
