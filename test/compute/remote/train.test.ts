/** Avatar training as a compute task: `avatar.train` over the worker protocol, by hand and with the built-in worker. */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TrainRequest, TrainResult } from '../../../src/compute/interface.ts';
import { createLocalBackend } from '../../../src/compute/local/index.ts';
import { runRemoteWorker } from '../../../src/compute/remote/worker/index.ts';
import { RenderError } from '../../../src/errors.ts';
import { createLogger } from '../../../src/log.ts';
import { makeFootage } from '../../helpers/train-footage.ts';
import { renderError, videoFacts } from '../../helpers/video.ts';
import { fakeVideo, remoteFixture, type RemoteFixture } from './fixture.ts';

let f: RemoteFixture | undefined;
let dir: string;
let footage: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mimic-remote-train-'));
  // 12 s: a 200 Hz voice for 6 s, then 6 s idle and silent.
  footage = makeFootage(join(dir, 'footage.mp4'), { seconds: 12, voiceSec: 6, voiceHz: 200, zoomPeriodSec: 5 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await f?.close();
  f = undefined;
});

function train(fx: RemoteFixture): { req: TrainRequest; progress: [number, number][]; outcome: Promise<{ ok: true; value: TrainResult } | { ok: false; error: unknown }>; result: Promise<TrainResult> } {
  const outputDir = join(dir, `out-${++n}`);
  mkdirSync(outputDir);
  const progress: [number, number][] = [];
  const req: TrainRequest = {
    jobId: `job_train_${n}`, footagePath: footage, idle: { fromSec: 6, toSec: 12 }, speech: { fromSec: 0, toSec: 6 },
    outputDir, workDir: dir, signal: new AbortController().signal, onProgress: (d, t) => progress.push([d, t]),
  };
  const result = fx.backend.run('avatar.train', req);
  const outcome = result.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  return { req, progress, outcome, result };
}

const png = () => sharp({ create: { width: 512, height: 512, channels: 3, background: '#806040' } }).png().toBuffer();

it('hands training to a worker: the footage as input, the windows in the task, two named outputs checked on upload, the measurements validated', async () => {
  f = await remoteFixture();
  const t = train(f);
  // A worker that does not ask for avatar.train is offered nothing.
  expect((await f.claim({ wait_ms: 0 })).status).toBe(204);
  const task = (await f.claim({ wait_ms: 20_000, kinds: ['avatar.train'] })).body;
  expect(task.kind).toBe('avatar.train');
  expect(Object.keys(task.inputs)).toEqual(['source']);
  expect(task.train).toEqual({ footage_url: task.inputs.source, idle: { from_sec: 6, to_sec: 12 }, speech: { from_sec: 0, to_sec: 6 } });
  expect(task.render).toBeUndefined();
  expect(task.result).toBeUndefined();
  expect(Object.keys(task.outputs).sort()).toEqual(['idle', 'reference']);
  expect(task.outputs.reference).toMatchObject({ method: 'PUT', content_type: 'image/png' });
  expect(task.outputs.idle).toMatchObject({ method: 'PUT', content_type: 'video/mp4' });
  expect(Buffer.from(await (await fetch(task.inputs.source)).arrayBuffer()).equals(readFileSync(footage))).toBe(true);

  const complete = (body: object) => f!.call('POST', `/compute/v1/tasks/${task.task_id}/complete`, { body: { lease: task.lease, ...body } });
  const measured = { reference_sec: 7.5, loop_sec: 4.8, size: 512, pitch_hz: 201.5 };
  // Each output is checked: the reference must be a PNG, the loop an mp4.
  const notPng = await f.upload(task.outputs.reference.upload_url, fakeVideo(), { 'content-type': 'image/png' });
  expect(notPng.status).toBe(400);
  expect(notPng.body.description).toMatch(/reference is not a PNG/);
  const picture = await png();
  expect((await f.upload(task.outputs.reference.upload_url, picture, { 'content-type': 'image/png' })).status).toBe(204);
  expect((await f.upload(task.outputs.idle.upload_url, picture, { 'content-type': 'video/mp4' })).status).toBe(400);
  // One output is missing: not complete.
  const missing = await complete({ train: measured });
  expect(missing.status).toBe(409);
  expect(missing.body.details.reason).toBe('result_missing');
  const video = fakeVideo();
  expect((await f.upload(task.outputs.idle.upload_url, video)).status).toBe(204);
  // The measurements are validated: the render form, out-of-range values, a reference outside the idle window.
  expect((await complete({ metadata: { num_frames: 1 }, face_ids: [0] })).status).toBe(400);
  expect((await complete({})).status).toBe(400);
  expect((await complete({ train: { ...measured, pitch_hz: 5000 } })).status).toBe(400);
  expect((await complete({ train: { ...measured, extra: 1 } })).status).toBe(400);
  const outside = await complete({ train: { ...measured, reference_sec: 2 } });
  expect(outside.status).toBe(400);
  expect(outside.body.description).toMatch(/idle window/);
  expect((await complete({ train: { ...measured, loop_sec: 9 } })).status).toBe(400);
  expect((await f.call('POST', `/compute/v1/tasks/${task.task_id}/heartbeat`, { body: { lease: task.lease, progress: { done: 3, total: 17 } } })).status).toBe(200);
  await expect.poll(() => t.progress.at(-1), { timeout: 10_000 }).toEqual([3, 17]);
  expect((await complete({ train: measured, render_ms: 900 })).status).toBe(200);
  // A repeated completion (its answer was lost) is answered again.
  expect((await complete({ train: measured })).status).toBe(200);

  expect(await t.result).toEqual({ referenceSec: 7.5, loopSec: 4.8, size: 512, pitchHz: 201.5 });
  expect(readFileSync(join(t.req.outputDir, 'reference.png')).equals(picture)).toBe(true);
  expect(readFileSync(join(t.req.outputDir, 'idle.mp4')).equals(video)).toBe(true);
});

it('ends training with FootageError when the worker names it, and a render task still refuses the train form', async () => {
  f = await remoteFixture();
  const t = train(f);
  const task = (await f.claim({ wait_ms: 20_000, kinds: ['avatar.train'] })).body;
  const fail = await f.call('POST', `/compute/v1/tasks/${task.task_id}/fail`, { body: { lease: task.lease, kind: 'FootageError', description: 'no face was found in the idle window' } });
  expect(fail.status).toBe(200);
  const err = await renderError(t.result);
  expect(err).toBeInstanceOf(RenderError);
  expect([err.kind, err.description]).toEqual(['FootageError', 'no face was found in the idle window']);

  const r = f.render();
  const renderTask = (await f.claim({ wait_ms: 20_000 })).body;
  expect((await f.upload(renderTask.result.upload_url, fakeVideo())).status).toBe(204);
  const wrong = await f.call('POST', `/compute/v1/tasks/${renderTask.task_id}/complete`, { body: { lease: renderTask.lease, train: { reference_sec: 1, loop_sec: 1, size: 512, pitch_hz: null } } });
  expect(wrong.status).toBe(400);
  expect((await f.finish(renderTask)).status).toBe(200);
  expect((await r.outcome).ok).toBe(true);
});

it('trains with the built-in worker and the local backend, end to end', async () => {
  f = await remoteFixture();
  const t = train(f);
  const local = createLocalBackend();
  try {
    const summary = await runRemoteWorker({ server: f.base, token: f.token, backend: local, log: createLogger(() => {}), once: true, waitMs: 20_000 });
    expect(summary).toMatchObject({ completed: 1, failed: 0, lost: 0 });
  } finally {
    await local.close();
  }
  const outcome = await t.outcome;
  expect(outcome.ok, String(!outcome.ok && outcome.error)).toBe(true);
  const result = (outcome as { value: TrainResult }).value;
  expect(result.size).toBe(512);
  expect(result.referenceSec).toBeGreaterThanOrEqual(6);
  expect(result.loopSec).toBeGreaterThan(4);
  expect(result.loopSec).toBeLessThanOrEqual(6);
  expect(Math.abs(result.pitchHz! - 200)).toBeLessThan(3);
  const meta = await sharp(join(t.req.outputDir, 'reference.png')).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
  const facts = videoFacts(join(t.req.outputDir, 'idle.mp4'));
  expect(facts).toMatchObject({ brand: 'isom', width: 512, height: 512, hasAudio: false, fps: 25, decodeErrors: '' });
  expect(facts.frames).toBe(Math.round(result.loopSec * 25));
  // No upload of an attempt is left behind in the output folder.
  expect(existsSync(join(t.req.outputDir, '.attempt-1.idle'))).toBe(false);
});
