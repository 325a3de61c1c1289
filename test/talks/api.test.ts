import { MODULES } from '../../src/modules.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { harness, type Harness } from '../helpers/harness.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { startTlsServer } from '../helpers/tls.ts';
import { toneSpeech } from '../helpers/tone-voice.ts';
import { RenderError } from '../../src/errors.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { CHARS_PER_SECOND, SECONDS_PER_CREDIT } from '../../src/speaking/credits.ts';
import { PHOTO, credits, talkHarness, uploadPhoto } from './helpers.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const make = (env: Record<string, string> = {}, opts: Parameters<typeof harness>[1] = {}, fallback: 'local' | 'error' = 'local') => {
  const made = talkHarness(env, opts, fallback);
  h = made.h;
  return made;
};
const calls = (hh: Harness) => (hh.services.backend as ReturnType<typeof createFakeBackend>).calls;
const talk = (source_url: string, input = 'Maybe more bread please', extra: object = {}) => ({ source_url, script: { type: 'text', input }, ...extra });
const PHOTO_URL = 'https://photos.test/face.jpg';

describe('POST /talks validation', () => {
  const script = { type: 'text', input: 'Maybe more bread please' };
  const cases: [string, unknown, string][] = [
    ['no source_url', { script }, 'source_url'],
    ['a source_url over http', { source_url: 'http://x.test/a.jpg', script }, 'source_url'],
    ['a source_url that is not a jpg, png, tiff or bmp', { source_url: 'https://x.test/a.gif', script }, 'source_url'],
    ['no script', { source_url: PHOTO_URL }, 'script'],
    ['input shorter than 3', talk(PHOTO_URL, 'hi'), 'input'],
    ['input of only spaces', talk(PHOTO_URL, '     '), 'script.input'],
    ['input longer than 40000', talk(PHOTO_URL, 'a'.repeat(40_001)), 'input'],
    ['audio_url of another extension', { source_url: PHOTO_URL, script: { type: 'audio', audio_url: 'https://x.test/a.ogg' } }, 'script'],
    ['subtitles', { source_url: PHOTO_URL, script: { ...script, subtitles: true } }, 'script'],
    ['provider without voice_id', { source_url: PHOTO_URL, script: { ...script, provider: { type: 'flite' } } }, 'script'],
    ['result_format webm', talk(PHOTO_URL, undefined, { config: { result_format: 'webm' } }), 'result_format'],
    ['output_resolution below 150', talk(PHOTO_URL, undefined, { config: { output_resolution: 100 } }), 'output_resolution'],
    ['logo of one coordinate', talk(PHOTO_URL, undefined, { config: { logo: { url: 'https://x.test/l.png', position: [1] } } }), 'position'],
    ['pad_audio over 60', talk(PHOTO_URL, undefined, { config: { pad_audio: 61 } }), 'pad_audio'],
    ['an unknown config field', talk(PHOTO_URL, undefined, { config: { sharpen: true } }), 'sharpen'],
    ['a presenter_id (talks speak a photo)', talk(PHOTO_URL, undefined, { presenter_id: 'eileen-Nc7kQ2rT5x' }), 'presenter_id'],
    ['a driver_url', talk(PHOTO_URL, undefined, { driver_url: 'bank://subtle' }), 'driver_url'],
    ['whitespace user_data', talk(PHOTO_URL, undefined, { user_data: '   ' }), 'user_data'],
    ['http webhook', talk(PHOTO_URL, undefined, { webhook: 'http://x.test/hook' }), 'webhook'],
    ['result_url of ftp', talk(PHOTO_URL, undefined, { result_url: 'ftp://x.test/r.mp4' }), 'result_url'],
    ['a result_url naming a container not written (.webm)', talk(PHOTO_URL, undefined, { result_url: 'https://x.test/r.webm' }), 'result_url'],
    ['a result_url whose extension contradicts result_format', talk(PHOTO_URL, undefined, { result_url: 's3://results/r.mov', config: { result_format: 'mp4' } }), 'result_url'],
    ['a storage source_url the caller does not own', talk('s3://images/img_nobody.jpg'), 'source_url'],
    ['a storage audio_url the caller does not own', { source_url: PHOTO_URL, script: { type: 'audio', audio_url: 's3://audios/aud_x/audio.mp3' } }, 'script.audio_url'],
  ];
  it.each(cases)('refuses %s with 400 naming the field, charging nothing', async (_name, body, field) => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/talks', { key: u.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body.details ?? res.body.description)).toContain(field);
    expect(credits(h, u.id)).toBe(10);
    expect((await h.call('GET', '/talks', { key: u.key })).body.talks).toEqual([]);
  });

  it.each([
    ['driver_expressions', { driver_expressions: { expressions: [{ start_frame: 0, expression: 'happy', intensity: 1 }] } }, 'config.driver_expressions'],
  ])('refuses %s as not supported yet (400), never silently ignored', async (_n, config, field) => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/talks', { key: u.key, body: talk(PHOTO_URL, undefined, { config }) });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({ field });
    expect(res.body.description).toMatch(/not supported yet/);
  });

  it('refuses a stored photo that is not an image, or too small, with 400 naming source_url', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-talk-photo-'));
    try {
      const { h } = make();
      const u = h.user();
      const text = join(dir, 'note.png');
      writeFileSync(text, 'not a picture at all');
      await h.services.mediaStore.put(u.id, 'images/img_note.png', text, 'image/png');
      const a = await h.call('POST', '/talks', { key: u.key, body: talk('s3://images/img_note.png') });
      expect(a.status).toBe(400);
      expect(a.body.details[0]).toMatchObject({ field: 'source_url' });
      const tiny = join(dir, 'tiny.png');
      await sharp(PHOTO).resize(32, 32).png().toFile(tiny);
      const small = await uploadPhoto(h, u.key, tiny, 'tiny.png');
      const b = await h.call('POST', '/talks', { key: u.key, body: talk(small) });
      expect(b.status).toBe(400);
      expect(b.body).toMatchObject({ kind: 'InvalidImageResolutionError', details: [{ field: 'source_url' }] });
      expect(credits(h, u.id)).toBe(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a voice the provider does not have, and an unconfigured one when the fallback policy is error', async () => {
    const { h } = make({}, {}, 'error');
    const u = h.user();
    const a = await h.call('POST', '/talks', { key: u.key, body: { source_url: PHOTO_URL, script: { type: 'text', input: 'Hello there', provider: { type: 'flite', voice_id: 'nobody' } } } });
    expect(a.status).toBe(400);
    expect(a.body.details[0]).toMatchObject({ field: 'script.provider.voice_id' });
    const b = await h.call('POST', '/talks', { key: u.key, body: { source_url: PHOTO_URL, script: { type: 'text', input: 'Hello there', provider: { type: 'microsoft', voice_id: 'en-US-GuyNeural' } } } });
    expect(b.status).toBe(400);
    expect(b.body.details[0]).toMatchObject({ field: 'script.provider.type' });
    expect(credits(h, u.id)).toBe(10);
  });

  it('asks for the stitch permission to put the face back into the whole photo (403 without it)', async () => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/talks', { key: u.key, body: talk(PHOTO_URL, undefined, { config: { stitch: true } }) });
    expect(res.status).toBe(403);
    expect(res.body.kind).toBe('PermissionError');
    const allowed = h.user({ permissions: ['stitch'] });
    expect((await h.call('POST', '/talks', { key: allowed.key, body: talk(PHOTO_URL, undefined, { config: { stitch: true } }) })).status).toBe(201);
  });

  it('answers 503 to a text script when the service is built without the voices module', async () => {
    h = harness({}, {}, MODULES.filter((m) => m.name !== 'voices'));
    const u = h.user();
    const res = await h.call('POST', '/talks', { key: u.key, body: talk(PHOTO_URL) });
    expect(res.status).toBe(503);
    expect(credits(h, u.id)).toBe(10);
  });
});

describe('talk lifecycle', () => {
  it('goes created → started → done on the photo, spoken by the default embedded voice, charged by length', async () => {
    const { h, voice } = make();
    const u = h.user({ credits: 10 });
    const photo = await uploadPhoto(h, u.key);
    const body = talk(photo, undefined, { user_data: 'ud-1', name: 'first', persist: true, config: { fluent: true } });
    const created = await h.call('POST', '/talks', { key: u.key, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'created_by', 'id', 'object', 'status']);
    expect(created.body).toMatchObject({ object: 'talk', status: 'created', created_by: u.id });
    expect(created.body.id).toMatch(/^tlk_/);
    expect(credits(h, u.id)).toBe(9);
    const id = created.body.id;
    const fresh = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(fresh).toMatchObject({ status: 'created', source_url: photo, user_id: u.id, credits: 1, metadata: { voice: { type: 'flite', voice_id: 'en-US-flite-slt' } } });
    expect(fresh.metadata.voice.fallback).toBeUndefined();
    expect(fresh.result_url).toBeUndefined();
    await h.services.worker.drain();
    expect(voice.calls).toHaveLength(1);
    expect(voice.calls[0]).toMatchObject({ text: 'Maybe more bread please', voiceId: 'en-US-flite-slt' });
    const rec = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(rec, JSON.stringify(rec.error)).toMatchObject({
      id, object: 'talk', status: 'done', user_id: u.id, created_by: u.id, source_url: photo, name: 'first', user_data: 'ud-1',
      script: body.script, config: { result_format: 'mp4', logo: true, stitch: false, fluent: true },
    });
    expect(rec.result_url).toMatch(/^http:\/\/mimic\.test\/media\/.+result\.mp4\?expires=/);
    expect(rec.audio_url).toMatch(/talks\/tlk_\w+\/audio\.wav\?expires=/);
    expect(rec.duration).toBeGreaterThan(0);
    expect(rec.metadata.speech_duration).toBeGreaterThan(1);
    expect(rec.started_at).toBeDefined();
    expect(rec.completed_at).toBeDefined();
    // The render got the uploaded photo itself, the speech and its cues, with sound and without stitch.
    const call = calls(h)[0]!;
    expect((h.services.backend as ReturnType<typeof createFakeBackend>).kinds[0]).toBe('talk.render');
    expect(call).toMatchObject({ mute: false, stitch: false, logo: { kind: 'default' }, driver: { kind: 'speech', seed: id } });
    expect(readFileSync(call.sourcePath)).toEqual(readFileSync(PHOTO));
    expect(call.driver.kind === 'speech' && call.driver.cues.map((c) => c.phoneme).slice(0, 2)).toEqual(['P', 'AA']);
    expect(credits(h, u.id)).toBe(9);
  });

  it('speaks with the named voice, and says which embedded voice stands in for an unconfigured one', async () => {
    const { h, voice } = make();
    const u = h.user();
    const script = (provider: object) => ({ type: 'text', input: 'Hello there', provider });
    const a = (await h.call('POST', '/talks', { key: u.key, body: { source_url: PHOTO_URL, script: script({ type: 'flite', voice_id: 'en-US-flite-rms' }) } })).body.id;
    const b = (await h.call('POST', '/talks', { key: u.key, body: { source_url: PHOTO_URL, script: script({ type: 'microsoft', voice_id: 'en-GB-RyanNeural' }) } })).body.id;
    expect((await h.call('GET', `/talks/${a}`, { key: u.key })).body.metadata.voice).toEqual({ type: 'flite', voice_id: 'en-US-flite-rms' });
    expect((await h.call('GET', `/talks/${b}`, { key: u.key })).body.metadata.voice).toMatchObject({
      type: 'flite', voice_id: 'en-GB-flite-awb', fallback: { requested: { type: 'microsoft', voice_id: 'en-GB-RyanNeural' } },
    });
    expect(voice.calls).toHaveLength(0);
  });

  it('charges one credit per started 15 s of estimated speech, and 402 when short (nothing stored)', async () => {
    const { h } = make();
    const u = h.user({ credits: 2 });
    const long = 'word '.repeat(Math.ceil((SECONDS_PER_CREDIT * 2.5 * CHARS_PER_SECOND) / 5));
    const res = await h.call('POST', '/talks', { key: u.key, body: talk(PHOTO_URL, long) });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ kind: 'InsufficientCreditsError' });
    expect(res.body.description).toMatch(/costs 3 credits/);
    expect((await h.call('GET', '/talks', { key: u.key })).body.talks).toEqual([]);
    expect(credits(h, u.id)).toBe(2);
  });

  it('pads the speech with config.pad_audio seconds of silence, charged as speech', async () => {
    const { h } = make();
    const u = h.user({ credits: 10 });
    // 194 spoken characters: 13.9 s of estimated speech, one credit; with 2 s of padding, two.
    const input = 'word '.repeat(39);
    const photo = await uploadPhoto(h, u.key);
    const created = await h.call('POST', '/talks', { key: u.key, body: talk(photo, input, { config: { pad_audio: 2 } }) });
    expect(created.status).toBe(201);
    expect(credits(h, u.id)).toBe(8);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${created.body.id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'done', credits: 2, config: { pad_audio: 2 } });
    const spoken = toneSpeech(input.trim(), 'en-US-flite-slt').durationMs / 1000;
    expect(Math.abs(rec.metadata.speech_duration - (spoken + 2))).toBeLessThan(0.05);
    // The renderer was given the padded speech, whose cues end where the words do.
    const call = calls(h)[0]!;
    expect(call.driver.kind === 'speech' && call.driver.cues.at(-1)!.endMs).toBeLessThanOrEqual(spoken * 1000);
  });

  it('refunds on a render error (a photo without a face) and records {kind, description}', async () => {
    const { h } = make({}, { backend: createFakeBackend({ failWith: new RenderError('FaceError', 'no face detected in the source image') }) });
    const u = h.user({ credits: 5 });
    const id = (await h.call('POST', '/talks', { key: u.key, body: talk(await uploadPhoto(h, u.key)) })).body.id;
    expect(credits(h, u.id)).toBe(4);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'error', error: { kind: 'FaceError', description: 'no face detected in the source image' } });
    expect(rec.result_url).toBeUndefined();
    expect(credits(h, u.id)).toBe(5);
  });

  it('ends in SourceError, refunded, when the stored photo is gone by the time the job runs', async () => {
    const { h } = make();
    const u = h.user({ credits: 5 });
    const photo = await uploadPhoto(h, u.key);
    const id = (await h.call('POST', '/talks', { key: u.key, body: talk(photo) })).body.id;
    await h.services.mediaStore.remove(u.id, photo.replace('s3://', ''));
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'error', error: { kind: 'SourceError' } });
    expect(calls(h)).toHaveLength(0);
    expect(credits(h, u.id)).toBe(5);
  });

  it('keeps talks to their owner (404 across users), pages them newest first, deletes with a refund before done', async () => {
    const { h } = make();
    const u = h.user();
    const other = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.call('POST', '/talks', { key: u.key, body: talk(PHOTO_URL) })).body.id);
    expect((await h.call('GET', `/talks/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await h.call('DELETE', `/talks/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await h.call('GET', '/talks', { key: other.key })).body.talks).toEqual([]);
    // A talk is not a clip: the clips' routes do not show it, nor the talks' a clip.
    expect((await h.call('GET', `/clips/${ids[0]}`, { key: u.key })).status).toBe(404);
    const clip = (await h.call('POST', '/clips', { key: u.key, body: { script: { type: 'text', input: 'Hello there' } } })).body.id;
    expect((await h.call('GET', `/talks/${clip}`, { key: u.key })).status).toBe(404);
    const p1 = (await h.call('GET', '/talks?limit=2', { key: u.key })).body;
    expect(p1.talks.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const p2 = (await h.call('GET', `/talks?limit=2&token=${p1.token}`, { key: u.key })).body;
    expect(p2.talks.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(p2.token).toBeUndefined();
    expect((await h.call('GET', '/talks?limit=0', { key: u.key })).status).toBe(400);
    expect(credits(h, u.id)).toBe(6);
    const del = await h.call('DELETE', `/talks/${ids[0]}`, { key: u.key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: ids[0], object: 'talk', status: 'created' });
    expect(credits(h, u.id)).toBe(7);
    expect((await h.call('GET', `/talks/${ids[0]}`, { key: u.key })).status).toBe(404);
  });

  it('deletes a finished talk without a refund, its media gone', async () => {
    const { h } = make();
    const u = h.user();
    const id = (await h.call('POST', '/talks', { key: u.key, body: talk(await uploadPhoto(h, u.key)) })).body.id;
    await h.services.worker.drain();
    expect((await h.call('GET', `/talks/${id}`, { key: u.key })).body.status).toBe('done');
    expect(storedFile(h.services.mediaStore, u.id, `talks/${id}/result.mp4`)).not.toBeNull();
    expect((await h.call('DELETE', `/talks/${id}`, { key: u.key })).status).toBe(200);
    expect(credits(h, u.id)).toBe(9);
    expect(storedFile(h.services.mediaStore, u.id, `talks/${id}/result.mp4`)).toBeNull();
    expect(storedFile(h.services.mediaStore, u.id, `talks/${id}/audio.wav`)).toBeNull();
  });

  it('sends the GET body to the webhook, signed', async () => {
    const receiver = await startTlsServer();
    try {
      receiver.handle((_req, res) => void res.writeHead(200).end());
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [receiver.ca] });
      const u = h.user();
      const id = (await h.call('POST', '/talks', { key: u.key, body: talk(await uploadPhoto(h, u.key), undefined, { webhook: `${receiver.url}/hook`, user_data: 'ud' }) })).body.id;
      await h.services.worker.drain();
      await h.services.modules.webhooks.dispatcher.runOnce();
      expect(receiver.received).toHaveLength(1);
      const { secret } = (await h.call('GET', '/webhooks/secret', { key: u.key })).body;
      const got = receiver.received[0]!;
      const body = new Webhook(secret).verify(got.body.toString(), got.headers as Record<string, string>) as any;
      const record = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
      // The same body as GET, but for the signed URLs, which are minted afresh on each.
      const unsigned = (v: Record<string, unknown>) => ({ ...v, result_url: String(v.result_url).split('?')[0], audio_url: String(v.audio_url).split('?')[0] });
      expect(unsigned(body)).toEqual(unsigned(record));
      expect(body).toMatchObject({ id, object: 'talk', status: 'done', user_data: 'ud', webhook: `${receiver.url}/hook` });
    } finally {
      await receiver.close();
    }
  });
});

describe('audio scripts and result_url', () => {
  it('speaks an audio uploaded with POST /audios, charged by its measured length, with no voice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-talk-audio-'));
    try {
      const { h, voice } = make();
      const u = h.user({ credits: 10 });
      const file = join(dir, 'a.wav');
      expect((await runFfmpeg(['-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=16', '-ac', '1', '-ar', '8000', '-c:a', 'pcm_s16le', file])).code).toBe(0);
      const form = new FormData();
      form.set('audio', new Blob([readFileSync(file)]), 'a.wav');
      const up = (await (await h.app.request('/audios', { method: 'POST', headers: { authorization: `Basic ${u.key}` }, body: form })).json()) as { url: string };
      const created = await h.call('POST', '/talks', { key: u.key, body: { source_url: await uploadPhoto(h, u.key), script: { type: 'audio', audio_url: up.url } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      // 16 s: two started 15-second blocks.
      expect(credits(h, u.id)).toBe(8);
      await h.services.worker.drain();
      const rec = (await h.call('GET', `/talks/${created.body.id}`, { key: u.key })).body;
      expect(rec).toMatchObject({ status: 'done', credits: 2 });
      expect(rec.metadata.voice).toBeUndefined();
      expect(rec.metadata.speech_duration).toBeGreaterThan(15.5);
      expect(rec.audio_url).toMatch(/talks\/tlk_\w+\/audio\.wav\?expires=/);
      expect(voice.calls).toHaveLength(0);
      expect(calls(h)[0]!.driver).toMatchObject({ kind: 'speech', cues: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('puts the video where result_url says: a key of the media store, or an https upload URL', async () => {
    const receiver = await startTlsServer();
    try {
      receiver.handle((_req, res) => void res.writeHead(200).end());
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [receiver.ca] });
      const u = h.user();
      const photo = await uploadPhoto(h, u.key);
      // Without result_format, the extension of result_url names the container (as on animations).
      const stored = (await h.call('POST', '/talks', { key: u.key, body: talk(photo, undefined, { result_url: 's3://results/my-talk.mov' }) })).body.id;
      const put = (await h.call('POST', '/talks', { key: u.key, body: talk(photo, undefined, { result_url: `${receiver.url}/upload/talk.mp4` }) })).body.id;
      await h.services.worker.drain();
      const a = (await h.call('GET', `/talks/${stored}`, { key: u.key })).body;
      expect(a).toMatchObject({ status: 'done', config: { result_format: 'mov' } });
      expect(a.result_url).toMatch(/\/results\/my-talk\.mov\?expires=/);
      expect(calls(h).map((c) => c.resultFormat).sort()).toEqual(['mov', 'mp4']);
      expect(storedFile(h.services.mediaStore, u.id, 'results/my-talk.mov')).not.toBeNull();
      const b = (await h.call('GET', `/talks/${put}`, { key: u.key })).body;
      expect(b.result_url).toBe(`${receiver.url}/upload/talk.mp4`);
      const upload = receiver.received.find((r) => r.method === 'PUT')!;
      expect(upload).toMatchObject({ path: '/upload/talk.mp4' });
      expect(upload.headers['content-type']).toBe('video/mp4');
      expect(upload.body.length).toBeGreaterThan(100);
    } finally {
      await receiver.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('publishes the schema that validates POST /talks, with the clips\' script schemas', async () => {
    const { h } = make();
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.paths['/talks'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTalk' });
    expect(Object.keys(doc.paths['/talks/{id}'])).toEqual(['get', 'delete']);
    const published = doc.components.schemas.CreateTalk;
    const validating = JSON.parse(JSON.stringify(h.services.modules.talks.deps.schemas.CreateTalk));
    expect(published.required).toEqual(['source_url', 'script']);
    expect(published.properties.source_url.pattern).toBe(validating.properties.source_url.pattern);
    expect(published.properties.script.anyOf).toEqual([{ $ref: '#/components/schemas/ClipTextScript' }, { $ref: '#/components/schemas/ClipAudioScript' }]);
    expect(doc.components.schemas.TalkConfig.additionalProperties).toBe(false);
    expect(Object.keys(doc.paths['/talks/{id}'].get.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
  });
});

describe('photos over https', () => {
  it('fetches the photo when the job runs; one too large, not an image, or unreachable ends the talk in error, refunded', async () => {
    const receiver = await startTlsServer();
    try {
      const jpg = readFileSync(PHOTO);
      const files: Record<string, [string, Buffer]> = {
        '/face.jpg': ['image/jpeg', jpg],
        '/big.jpg': ['image/jpeg', Buffer.concat([jpg, Buffer.alloc(200_000)])],
        '/text.jpg': ['image/jpeg', Buffer.from('not a picture')],
      };
      receiver.handle((req, res) => {
        const file = files[req.path];
        if (!file) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
      });
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_MAX_IMAGE_BYTES: '100000' }, { ca: [receiver.ca] });
      const u = h.user({ credits: 10 });
      const post = async (path: string) => (await h.call('POST', '/talks', { key: u.key, body: talk(`${receiver.url}${path}`) })).body.id as string;
      const ok = await post('/face.jpg');
      const big = await post('/big.jpg');
      const text = await post('/text.jpg');
      const gone = await post('/gone.jpg');
      expect(credits(h, u.id)).toBe(6);
      await h.services.worker.drain();
      const get = async (id: string) => (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
      expect(await get(ok)).toMatchObject({ status: 'done', source_url: `${receiver.url}/face.jpg` });
      // Only the good photo reached the renderer.
      expect(calls(h)).toHaveLength(1);
      expect(await get(big)).toMatchObject({ status: 'error', error: { kind: 'InvalidFileSizeError' } });
      expect(await get(text)).toMatchObject({ status: 'error', error: { kind: 'SourceError' } });
      const unreachable = await get(gone);
      expect(unreachable).toMatchObject({ status: 'error', error: { kind: 'SourceError' } });
      expect(unreachable.error.description).not.toContain('/gone.jpg');
      expect(credits(h, u.id)).toBe(9);
    } finally {
      await receiver.close();
    }
  });
});
