/** A talk's render as a compute task: a GPU worker claims `talk.render` (photo, speech audio, cues) over the protocol. */
import { afterEach, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { remoteFixture, type RemoteFixture } from '../compute/remote/fixture.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { PHOTO, uploadPhoto } from './helpers.ts';

let f: RemoteFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

it('hands a talk to a remote worker as a talk.render task and finishes it', async () => {
  f = await remoteFixture({}, { backend: undefined, voices: toneCatalogue().catalogue });
  f.h.services.worker.start();
  const { key } = f.h.user();
  const photo = await uploadPhoto(f.h, key);
  const created = await f.h.call('POST', '/talks', { key, body: { source_url: photo, script: { type: 'text', input: 'Maybe more bread' }, config: { logo: false } } });
  expect(created.status).toBe(201);
  // A worker that asks only for clips is offered nothing.
  expect((await f.claim({ wait_ms: 0, kinds: ['clip.render'] })).status).toBe(204);
  const task = (await f.claim({ wait_ms: 20_000, kinds: ['talk.render'] })).body;
  expect(task.kind).toBe('talk.render');
  expect(Object.keys(task.inputs).sort()).toEqual(['driver', 'source']);
  expect(task.render.driver).toMatchObject({ kind: 'speech', seed: created.body.id });
  expect(task.render).toMatchObject({ mute: false, stitch: false });
  // The worker fetches the photo itself, and the speech, with their signed URLs.
  const source = Buffer.from(await (await fetch(task.inputs.source)).arrayBuffer());
  expect(source).toEqual(readFileSync(PHOTO));
  const wav = Buffer.from(await (await fetch(task.inputs.driver)).arrayBuffer());
  expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
  expect((await f.finish(task)).status).toBe(200);
  const view = async () => (await f!.h.call('GET', `/talks/${created.body.id}`, { key })).body;
  await expect.poll(async () => (await view()).status, { timeout: 10_000 }).toBe('done');
  const rec = await view();
  expect(rec).toMatchObject({ object: 'talk', source_url: photo, metadata: { voice: { type: 'flite', voice_id: 'en-US-flite-slt' } } });
  expect(rec.result_url).toBeDefined();
  expect(rec.audio_url).toMatch(/talks\/tlk_\w+\/audio\.wav/);
});
