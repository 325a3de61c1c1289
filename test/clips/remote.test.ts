/** A clip's render as a compute task: a GPU worker claims `clip.render` with the speech driver over the protocol. */
import { afterEach, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import type { ComputeBackend, RenderRequest } from '../../src/compute/interface.ts';
import { runRemoteWorker } from '../../src/compute/remote/worker/index.ts';
import { createLogger } from '../../src/log.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { METADATA, fakeVideo, remoteFixture, type RemoteFixture } from '../compute/remote/fixture.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { storedFile } from '../media/stored-file.ts';

let f: RemoteFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

it('hands a clip to a remote worker as a clip.render task (presenter, speech audio, cues) and finishes it', async () => {
  f = await remoteFixture({}, { backend: undefined, voices: toneCatalogue().catalogue });
  f.h.services.worker.start();
  const { key } = f.h.user();
  const created = await f.h.call('POST', '/clips', { key, body: { script: { type: 'text', input: 'Maybe more bread' }, config: { logo: false } } });
  expect(created.status).toBe(201);
  // A worker that asks only for animations is offered nothing.
  expect((await f.claim({ wait_ms: 0, kinds: ['animation.render'] })).status).toBe(204);
  const task = (await f.claim({ wait_ms: 20_000, kinds: ['clip.render'] })).body;
  expect(task.kind).toBe('clip.render');
  // Started, and a worker renders it: pending_url is on the record already, an event playlist with no segment yet.
  const started = (await f.h.call('GET', `/clips/${created.body.id}`, { key })).body;
  expect(started.status).toBe('started');
  expect(started.pending_url).toMatch(/\/pending\/\d+\.[A-Za-z0-9_-]{43}\/index\.m3u8$/);
  const playlist = await f.h.app.request(new URL(started.pending_url).pathname);
  expect(playlist.status).toBe(200);
  const text = await playlist.text();
  expect(text).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
  expect(text.split('\n').filter((l) => l.endsWith('.ts'))).toEqual([]);
  expect(Object.keys(task.inputs).sort()).toEqual(['driver', 'source']);
  expect(task.render.driver).toMatchObject({ kind: 'speech', seed: created.body.id });
  expect(task.render.driver.cues.slice(0, 2).map((c: { phoneme: string }) => c.phoneme)).toEqual(['P', 'AA']);
  expect(task.render.mute).toBe(false);
  // The speech is fetchable by the worker with its signed URL: a WAV.
  const wav = Buffer.from(await (await fetch(task.inputs.driver)).arrayBuffer());
  expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
  // Progress reported by the worker shows on the record while it renders.
  expect((await f.call('POST', `/compute/v1/tasks/${task.task_id}/heartbeat`, { body: { lease: task.lease, progress: { done: 7, total: 50 } } })).status).toBe(200);
  await expect.poll(async () => (await f!.h.call('GET', `/clips/${created.body.id}`, { key })).body, { timeout: 10_000 }).toMatchObject({ status: 'started', progress: { frames_done: 7, frames_total: 50 } });
  expect((await f.finish(task)).status).toBe(200);
  const view = async () => (await f!.h.call('GET', `/clips/${created.body.id}`, { key })).body;
  await expect.poll(async () => (await view()).status, { timeout: 10_000 }).toBe('done');
  const rec = await view();
  expect(rec.result_url).toBeDefined();
  expect(rec.audio_url).toMatch(/audio\.wav/);
});

it('hands the background to the worker: a picture as a signed input, a colour or transparency in the task; a webm result must be a WebM', async () => {
  f = await remoteFixture({}, { backend: undefined, voices: toneCatalogue().catalogue });
  f.h.services.worker.start();
  const { id: userId, key } = f.h.user();
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#224466' } }).png().toBuffer();
  await f.h.services.mediaStore.put(userId, 'b/room.png', png, 'image/png');
  const post = async (body: object) => (await f!.h.call('POST', '/clips', { key, body: { script: { type: 'text', input: 'Maybe more bread' }, config: { logo: false }, ...body } })).body.id as string;

  const pictured = await post({ background: { source_url: 's3://b/room.png' } });
  const a = (await f.claim({ wait_ms: 20_000, kinds: ['clip.render'] })).body;
  expect(Object.keys(a.inputs).sort()).toEqual(['background', 'driver', 'source']);
  expect(a.render.background).toEqual({ kind: 'image', url: a.inputs.background });
  expect(Buffer.from(await (await fetch(a.inputs.background)).arrayBuffer()).equals(png)).toBe(true);
  expect((await f.finish(a)).status).toBe(200);
  await expect.poll(async () => (await f!.h.call('GET', `/clips/${pictured}`, { key })).body.status, { timeout: 10_000 }).toBe('done');

  const clear = await post({ background: { color: false }, config: { logo: false, result_format: 'webm' } });
  const b = (await f.claim({ wait_ms: 20_000, kinds: ['clip.render'] })).body;
  expect(Object.keys(b.inputs).sort()).toEqual(['driver', 'source']);
  expect(b.render).toMatchObject({ result_format: 'webm', background: { kind: 'transparent' } });
  expect(b.result.content_type).toBe('video/webm');
  // An mp4 is not the webm the task asks for; the EBML magic is.
  const wrong = await f.upload(b.result.upload_url, fakeVideo('isom'), { 'content-type': 'video/webm' });
  expect(wrong.status).toBe(400);
  expect(wrong.body.description).toMatch(/not a WebM/);
  const webm = Buffer.concat([Buffer.from('1a45dfa3', 'hex'), Buffer.alloc(2000)]);
  expect((await f.upload(b.result.upload_url, webm, { 'content-type': 'video/webm' })).status).toBe(204);
  expect((await f.call('POST', `/compute/v1/tasks/${b.task_id}/complete`, { body: { lease: b.lease, metadata: METADATA, face_ids: [0] } })).status).toBe(200);
  await expect.poll(async () => (await f!.h.call('GET', `/clips/${clear}`, { key })).body.status, { timeout: 10_000 }).toBe('done');
  expect(storedFile(f.h.services.mediaStore, userId, `clips/${clear}/result.webm`)).not.toBeNull();

  await post({ background: { color: '#112233' } });
  const c = (await f.claim({ wait_ms: 20_000, kinds: ['clip.render'] })).body;
  expect(c.render).toMatchObject({ result_format: 'mp4', background: { kind: 'color', color: '#112233' } });
});

it('the worker fetches a background picture and hands it to its backend, and uploads the webm it renders', async () => {
  f = await remoteFixture({}, { backend: undefined, voices: toneCatalogue().catalogue });
  f.h.services.worker.start();
  const { id: userId, key } = f.h.user();
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#224466' } }).png().toBuffer();
  await f.h.services.mediaStore.put(userId, 'b/room.png', png, 'image/png');
  const created = await f.h.call('POST', '/clips', { key, body: { script: { type: 'text', input: 'Maybe more bread' }, config: { logo: false, result_format: 'webm' }, background: { source_url: 's3://b/room.png' } } });
  expect(created.status).toBe(201);
  const seen: Buffer[] = [];
  const fake = createFakeBackend();
  const backend: ComputeBackend = { ...fake, run: async (kind, req) => {
    const render = req as unknown as RenderRequest;
    if (render.background?.kind === 'image') seen.push(readFileSync(render.background.path));
    return fake.run(kind, req);
  } };
  const summary = await runRemoteWorker({ server: f.base, token: f.token, backend, log: createLogger(() => {}), once: true, waitMs: 20_000 });
  expect(summary).toMatchObject({ completed: 1, failed: 0 });
  expect(fake.calls[0]).toMatchObject({ resultFormat: 'webm', background: { kind: 'image' } });
  expect(seen).toHaveLength(1);
  expect(seen[0]!.equals(png)).toBe(true);
  await expect.poll(async () => (await f!.h.call('GET', `/clips/${created.body.id}`, { key })).body.status, { timeout: 10_000 }).toBe('done');
  expect(readFileSync(storedFile(f.h.services.mediaStore, userId, `clips/${created.body.id}/result.webm`)!).toString('hex', 0, 4)).toBe('1a45dfa3');
});

it('output_resolution is the task’s: the claim carries it, the built-in worker scales its own result, and the service delivers the upload as it is', async () => {
  f = await remoteFixture({}, { backend: undefined, voices: toneCatalogue().catalogue });
  f.h.services.worker.start();
  const { key } = f.h.user();
  const post = async () => (await f!.h.call('POST', '/clips', { key, body: { script: { type: 'text', input: 'Maybe more bread' }, config: { logo: false, output_resolution: 256 } } })).body.id as string;

  // A worker that renders 512x512 and uploads it: the service no longer re-encodes in the API process (the upload
  // here is no decodable video at all, so a re-encode after the worker would fail the clip).
  const raw = await post();
  const task = (await f.claim({ wait_ms: 20_000, kinds: ['clip.render'] })).body;
  expect(task.render.output_resolution).toBe(256);
  expect((await f.finish(task)).status).toBe(200);
  const view = async (id: string) => (await f!.h.call('GET', `/clips/${id}`, { key })).body;
  await expect.poll(async () => (await view(raw)).status, { timeout: 10_000 }).toBe('done');
  expect((await view(raw)).metadata.resolution).toEqual(['512', '512']);

  // The built-in worker hands the resolution to its backend, which scales the 64x64 render to 256x256.
  const scaled = await post();
  const fake = createFakeBackend();
  const summary = await runRemoteWorker({ server: f.base, token: f.token, backend: fake, log: createLogger(() => {}), once: true, waitMs: 20_000 });
  expect(summary).toMatchObject({ completed: 1, failed: 0 });
  expect(fake.calls[0]).toMatchObject({ outputResolution: 256 });
  await expect.poll(async () => (await view(scaled)).status, { timeout: 10_000 }).toBe('done');
  expect((await view(scaled)).metadata.resolution).toEqual(['256', '256']);
});
