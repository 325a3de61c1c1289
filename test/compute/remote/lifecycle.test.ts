import { afterEach, describe, expect, it } from 'vitest';
import { RenderError } from '../../../src/errors.ts';
import { METADATA, fakeVideo, remoteFixture, type RemoteFixture } from './fixture.ts';
import { sqliteOf } from '../../helpers/stores.ts';

let f: RemoteFixture;
afterEach(async () => {
  await f.close();
});

const taskRow = (id: string) => sqliteOf(f.h.services.store).sqlite.prepare('SELECT * FROM compute_tasks WHERE id = ?').get(id) as any;
const complete = (t: any, metadata: unknown, extra: Record<string, unknown> = {}) =>
  f.call('POST', `/compute/v1/tasks/${t.task_id}/complete`, { body: { lease: t.lease, metadata, face_ids: [0], ...extra } });
const fail = (t: any, body: Record<string, unknown>) => f.call('POST', `/compute/v1/tasks/${t.task_id}/fail`, { body: { lease: t.lease, ...body } });

describe('completing', () => {
  it('refuses metadata that is not the schema, naming the field; the task stays open', async () => {
    f = await remoteFixture();
    const r = f.render();
    const t = (await f.claim()).body;
    expect((await f.upload(t.result.upload_url, fakeVideo())).status).toBe(204);
    const face = METADATA.faces[0]!;
    const bad: [string, unknown][] = [
      ['injected', { ...METADATA, injected: '<script>' }],
      ['num_frames', { ...METADATA, num_frames: 'many' }],
      ['resolution.0', { ...METADATA, resolution: ['512px', '512'] }],
      ['source_pose', { ...METADATA, source_pose: [1, 2] }],
      ['faces.0.overlap', { ...METADATA, faces: [{ ...face, overlap: 'NO' }] }],
      ['faces.0.detect_confidence', { ...METADATA, faces: [{ ...face, detect_confidence: 7 }] }],
      ['video_fps', (({ video_fps: _, ...m }) => m)(METADATA)],
    ];
    for (const [field, metadata] of bad) {
      const res = await complete(t, metadata);
      expect(res.status, field).toBe(400);
      expect(res.body.kind).toBe('ValidationError');
      expect(res.body.details.map((d: { field: string }) => d.field), field).toContain(`metadata.${field}`);
    }
    expect((await complete(t, METADATA, { face_ids: [0, 0] })).status).toBe(400);
    expect(taskRow(t.task_id).status).toBe('leased');
    expect((await complete(t, METADATA)).status).toBe(200);
    expect((await r.result).metadata).toEqual(METADATA);
  });

  it('an animation renders through the protocol: the record gets the worker’s metadata and video', async () => {
    f = await remoteFixture({}, { backend: undefined });
    f.h.services.worker.start();
    const { key } = f.h.user();
    const created = await f.h.call('POST', '/animations', { key, body: { driver_url: 'bank://fun/driver-02' } });
    expect(created.status).toBe(201);
    const t = (await f.claim({ wait_ms: 20_000 })).body;
    expect(t.render.driver).toEqual({ kind: 'bank', category: 'fun', name: 'driver-02' });
    // The service's copy of the sample photo, byte for byte a PNG.
    const source = await fetch(t.render.source_url);
    expect(Buffer.from(await source.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const beat = await f.call('POST', `/compute/v1/tasks/${t.task_id}/heartbeat`, { body: { lease: t.lease, progress: { done: 5, total: 125 } } });
    expect(beat.status).toBe(200);
    await expect.poll(async () => (await f.h.call('GET', `/animations/${created.body.id}`, { key })).body.progress).toEqual({ frames_done: 5, frames_total: 125 });
    expect((await f.finish(t)).status).toBe(200);
    await expect
      .poll(async () => (await f.h.call('GET', `/animations/${created.body.id}`, { key })).body, { timeout: 10_000 })
      .toMatchObject({ status: 'done', metadata: { num_frames: 125, resolution: ['512', '512'] }, face_ids: [0] });
    const done = (await f.h.call('GET', `/animations/${created.body.id}`, { key })).body;
    const video = await fetch(done.result_url);
    expect(Buffer.from(await video.arrayBuffer())).toEqual(fakeVideo());
  });
});

describe('failing', () => {
  it('with an input kind: the render fails with that kind, is not retried, and names no URL or path', async () => {
    f = await remoteFixture();
    const r = f.render();
    const t = (await f.claim()).body;
    const res = await fail(t, { kind: 'FaceError', description: 'no face in /tmp/gpu-7/in/source.png from https://cdn.example/x.png?sig=1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'failed' });
    const out = await r.outcome;
    expect(out.ok).toBe(false);
    const err = (out as { error: unknown }).error as RenderError;
    expect(err).toBeInstanceOf(RenderError);
    expect(err.kind).toBe('FaceError');
    expect(err.description).toBe('no face in [path] from [url]');
    expect((await f.claim()).status).toBe(204);
    expect((await fail(t, { kind: 'FaceError' })).status).toBe(409);
  });

  it('refuses a kind that is not an input kind', async () => {
    f = await remoteFixture();
    f.render();
    const t = (await f.claim()).body;
    for (const kind of ['UnknownError', 'InternalServerError', 'faceerror']) {
      const res = await fail(t, { kind, description: 'x' });
      expect(res.status, kind).toBe(400);
    }
    expect(taskRow(t.task_id).status).toBe('leased');
  });

  it('without a kind: requeued at once for any worker, until the attempts are used; then render() fails retryably', async () => {
    f = await remoteFixture({ MIMIC_COMPUTE_MAX_ATTEMPTS: '2' });
    const r = f.render();
    const first = (await f.claim()).body;
    expect((await fail(first, { description: 'CUDA out of memory' })).body).toEqual({ status: 'queued' });
    // The failed lease is dead.
    expect((await f.call('POST', `/compute/v1/tasks/${first.task_id}/heartbeat`, { body: { lease: first.lease } })).body.details).toEqual({ reason: 'lease_lost' });
    const second = (await f.claim()).body;
    expect(second).toMatchObject({ task_id: first.task_id, attempt: 2 });
    expect((await fail(second, {})).body).toEqual({ status: 'failed' });
    const out = await r.outcome;
    expect(out.ok).toBe(false);
    const err = (out as { error: Error }).error;
    expect(err).not.toBeInstanceOf(RenderError);
    expect(err.message).toMatch(/after 2 attempt/);
    expect((await f.claim()).status).toBe(204);
  });
});

describe('cancelling', () => {
  it('an aborted render cancels its task: AbortError, and the worker hears 409 cancelled', async () => {
    f = await remoteFixture();
    const r = f.render();
    const t = (await f.claim()).body;
    r.controller.abort();
    const out = await r.outcome;
    expect(out.ok).toBe(false);
    expect(((out as { error: unknown }).error as DOMException).name).toBe('AbortError');
    const beat = await f.call('POST', `/compute/v1/tasks/${t.task_id}/heartbeat`, { body: { lease: t.lease } });
    expect(beat.status).toBe(409);
    expect(beat.body.details).toEqual({ reason: 'cancelled' });
    expect((await f.upload(t.result.upload_url, fakeVideo())).status).toBe(403);
    expect((await complete(t, METADATA)).body.details).toEqual({ reason: 'cancelled' });
    expect(taskRow(t.task_id).status).toBe('cancelled');
  });

  it('a render aborted before it is claimed never reaches a worker', async () => {
    f = await remoteFixture();
    const r = f.render();
    r.controller.abort();
    await r.outcome;
    expect((await f.claim()).status).toBe(204);
  });

  it('deleting the animation cancels its task at once, and its job ends without a retry', async () => {
    f = await remoteFixture({}, { backend: undefined });
    f.h.services.worker.start();
    const { key } = f.h.user();
    const created = await f.h.call('POST', '/animations', { key, body: {} });
    const t = (await f.claim({ wait_ms: 20_000 })).body;
    expect((await f.h.call('DELETE', `/animations/${created.body.id}`, { key })).status).toBe(200);
    const beat = await f.call('POST', `/compute/v1/tasks/${t.task_id}/heartbeat`, { body: { lease: t.lease } });
    expect(beat.status).toBe(409);
    expect(beat.body.details).toEqual({ reason: 'cancelled' });
    const job = () => sqliteOf(f.h.services.store).sqlite.prepare('SELECT status, lease_owner FROM jobs WHERE resource_id = ?').get(created.body.id) as any;
    // The job runner notices at its next job heartbeat and lets the render go; the job stays cancelled.
    await expect.poll(() => job().status).toBe('cancelled');
    await f.h.services.worker.stop(5000);
    expect(job().status).toBe('cancelled');
    expect(sqliteOf(f.h.services.store).sqlite.prepare('SELECT count(*) AS n FROM compute_tasks').get()).toEqual({ n: 1 });
  });
});
