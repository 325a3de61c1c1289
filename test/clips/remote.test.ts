/** A clip's render as a compute task: a GPU worker claims `clip.render` with the speech driver over the protocol. */
import { afterEach, expect, it } from 'vitest';
import { remoteFixture, type RemoteFixture } from '../compute/remote/fixture.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';

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
