import { MODULES } from '../../src/modules.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import sharp from 'sharp';
import { harness, type Harness } from '../helpers/harness.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { startTlsServer } from '../helpers/tls.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { RenderError } from '../../src/errors.ts';
import { CHARS_PER_SECOND, SECONDS_PER_CREDIT } from '../../src/speaking/credits.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PRESENTER = 'eileen-Nc7kQ2rT5x';
const text = (input = 'Maybe more bread please', extra: object = {}) => ({ presenter_id: PRESENTER, script: { type: 'text', input, ...extra } });
const credits = (hh: Harness, id: string) => (sqliteOf(hh.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;
const make = (env: Record<string, string> = {}, opts: Parameters<typeof harness>[1] = {}, fallback: 'local' | 'error' = 'local') => {
  const tone = toneCatalogue(fallback);
  h = harness(env, { voices: tone.catalogue, ...opts });
  return { h, voice: tone.voice };
};

describe('POST /clips validation', () => {
  const cases: [string, unknown, string][] = [
    ['no script', { presenter_id: PRESENTER }, 'script'],
    ['input shorter than 3', text('hi'), 'input'],
    ['input of only spaces', text('     '), 'script.input'],
    ['SSML with only tags', text('<speak> <break time="1s"/> </speak>', { ssml: true }), 'script.input'],
    ['input longer than 40000', text('a'.repeat(40_001)), 'input'],
    ['unknown script type', { script: { type: 'video', input: 'hello there' } }, 'script'],
    ['audio without audio_url', { script: { type: 'audio' } }, 'script'],
    ['audio_url of another extension', { script: { type: 'audio', audio_url: 'https://x.test/a.ogg' } }, 'script'],
    ['audio_url over http', { script: { type: 'audio', audio_url: 'http://x.test/a.mp3' } }, 'script'],
    ['provider without voice_id', text(undefined, { provider: { type: 'flite' } }), 'script'],
    ['result_format avi', { ...text(), config: { result_format: 'avi' } }, 'result_format'],
    ['output_resolution below 150', { ...text(), config: { output_resolution: 100 } }, 'output_resolution'],
    ['output_resolution above 1080', { ...text(), config: { output_resolution: 2000 } }, 'output_resolution'],
    ['logo of one coordinate', { ...text(), config: { logo: { url: 'https://x.test/l.png', position: [1] } } }, 'position'],
    ['whitespace user_data', { ...text(), user_data: '   ' }, 'user_data'],
    ['user_data over 1000', { ...text(), user_data: 'x'.repeat(1001) }, 'user_data'],
    ['http webhook', { ...text(), webhook: 'http://x.test/hook' }, 'webhook'],
    ['unknown field', { ...text(), driver_id: 'abc' }, 'driver_id'],
    ['result_url of ftp', { ...text(), result_url: 'ftp://x.test/r.mp4' }, 'result_url'],
    ['subtitles', text(undefined, { subtitles: true }), 'script'],
  ];
  it.each(cases)('refuses %s with 400 naming the field', async (_name, body, field) => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body.details ?? res.body.description)).toContain(field);
    expect(credits(h, u.id)).toBe(10);
  });

  it.each([
    ['a background colour that is not #rrggbb', { background: { color: 'green' } }, 'background.color', /required form \(pattern \^#\[a-fA-F0-9\]\{6\}/],
    ['a background colour of three digits', { background: { color: '#0f0' } }, 'background.color', /required form \(pattern \^#\[a-fA-F0-9\]\{6\}/],
    ['color true', { background: { color: true } }, 'background.color', /./],
    ['a transparent background in an mp4 (the default format)', { background: { color: false } }, 'background.color', /needs config.result_format webm .*mp4 has no alpha channel/],
    ['a transparent background in an explicit mp4', { background: { color: false }, config: { result_format: 'mp4' } }, 'background.color', /mp4 has no alpha channel/],
    ['both a colour and a picture', { background: { color: '#00ff00', source_url: 'https://x.test/b.png' } }, 'background', /color or source_url, not both/],
    ['a background picture over http', { background: { source_url: 'http://x.test/b.png' } }, 'background.source_url', /required form \(pattern \^\(\?:https\|s3\)/],
    ['a background picture of another scheme', { background: { source_url: 'ftp://x.test/b.png' } }, 'background.source_url', /required form \(pattern \^\(\?:https\|s3\)/],
    ['a stored background picture the caller does not own', { background: { source_url: 's3://b/none.png' } }, 'background.source_url', /does not exist in your media store/],
    ['an unknown background field', { background: { image: 'https://x.test/b.png' } }, 'background.image', /not an allowed field/],
  ])('refuses %s with 400 naming the field and why, charging nothing', async (_n, extra, field, why) => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: { ...text(), ...extra } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const detail = (res.body.details as { field: string; message: string }[]).find((d) => d.field === field);
    expect(detail, JSON.stringify(res.body.details)).toBeDefined();
    expect(detail!.message).toMatch(why);
    expect(credits(h, u.id)).toBe(10);
  });

  it('refuses a stored background that is not an image with 400, charging nothing', async () => {
    const { h } = make();
    const u = h.user();
    await h.services.mediaStore.put(u.id, 'b/bg.png', Buffer.from('not a picture at all'), 'image/png');
    const res = await h.call('POST', '/clips', { key: u.key, body: { ...text(), background: { source_url: 's3://b/bg.png' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.details[0]).toMatchObject({ field: 'background.source_url' });
    expect(res.body.details[0].message).toMatch(/not a jpg or png image/);
    expect(credits(h, u.id)).toBe(10);
  });

  it.each([
    ['a colour', { background: { color: '#00B140' } }, 'mp4', { kind: 'color', color: '#00B140' }],
    ['a transparent webm', { background: { color: false }, config: { result_format: 'webm' } }, 'webm', { kind: 'transparent' }],
    ['a transparent mov', { background: { color: false }, config: { result_format: 'mov' } }, 'mov', { kind: 'transparent' }],
    ['a webm on the presenter\'s own picture', { config: { result_format: 'webm' } }, 'webm', undefined],
    ['an empty background (the presenter\'s own picture)', { background: {} }, 'mp4', undefined],
  ])('accepts %s and hands it to the render', async (_n, extra, format, background) => {
    const { h } = make({}, { backend: createFakeBackend() });
    const u = h.user();
    const created = await h.call('POST', '/clips', { key: u.key, body: { ...text(), ...extra } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h.services.worker.drain();
    const call = (h.services.backend as ReturnType<typeof createFakeBackend>).calls[0]!;
    expect(call.resultFormat).toBe(format);
    expect(call.background).toEqual(background);
    const rec = (await h.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
    expect(rec, JSON.stringify(rec.error)).toMatchObject({ status: 'done', config: { result_format: format } });
    expect(storedFile(h.services.mediaStore, u.id, `clips/${created.body.id}/result.${format}`)).not.toBeNull();
  });

  it('refuses an unknown presenter with 400 (as the hosted POST /clips does: it has no 404)', async () => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: { ...text(), presenter_id: 'nobody-0000000000' } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({ field: 'presenter_id' });
  });

  it('takes a presenter alias (the hosted demo\'s public presenter) as the built-in presenter it names; none when the operator empties the map', async () => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: { ...text(), presenter_id: 'v2_public_alex@qcvo4gupoy' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await h.call('GET', `/clips/${res.body.id}`, { key: u.key })).body.presenter_id).toBe('ernst-Bv6tR3nK9p');
    await h.close();
    const off = make({ MIMIC_PRESENTER_ALIASES: '' }).h;
    const v = off.user();
    const refused = await off.call('POST', '/clips', { key: v.key, body: { ...text(), presenter_id: 'v2_public_alex@qcvo4gupoy' } });
    expect(refused.status).toBe(400);
  });

  it('refuses a voice the provider does not have, and an unknown provider, with 400', async () => {
    const { h } = make();
    const u = h.user();
    const a = await h.call('POST', '/clips', { key: u.key, body: text(undefined, { provider: { type: 'flite', voice_id: 'nobody' } }) });
    expect(a.status).toBe(400);
    expect(a.body.details[0]).toMatchObject({ field: 'script.provider.voice_id' });
    const b = await h.call('POST', '/clips', { key: u.key, body: text(undefined, { provider: { type: 'acme', voice_id: 'x' } }) });
    expect(b.status).toBe(400);
    expect(b.body.details[0]).toMatchObject({ field: 'script.provider.type' });
  });

  it('refuses an unconfigured external voice with 400 when the fallback policy is error', async () => {
    const { h } = make({}, {}, 'error');
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: text(undefined, { provider: { type: 'microsoft', voice_id: 'en-US-GuyNeural' } }) });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({ field: 'script.provider.type' });
    expect(credits(h, u.id)).toBe(10);
  });

  it('refuses a storage audio_url the caller does not own', async () => {
    const { h } = make();
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: { presenter_id: PRESENTER, script: { type: 'audio', audio_url: 's3://audios/aud_x/audio.mp3' } } });
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toMatchObject({ field: 'script.audio_url' });
  });

  it('answers 503 to a text script when the service is built without the voices module', async () => {
    h = harness({}, {}, MODULES.filter((m) => m.name !== 'voices'));
    const u = h.user();
    const res = await h.call('POST', '/clips', { key: u.key, body: text() });
    expect(res.status).toBe(503);
    expect(credits(h, u.id)).toBe(10);
  });
});

describe('clip lifecycle', () => {
  it('goes created → started → done with the speech stored, the voice named, credits charged by length', async () => {
    const { h, voice } = make();
    const u = h.user({ credits: 10 });
    const created = await h.call('POST', '/clips', { key: u.key, body: { ...text(), user_data: 'ud-1', name: 'first', persist: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'object', 'status']);
    expect(created.body).toMatchObject({ object: 'clip', status: 'created' });
    expect(credits(h, u.id)).toBe(9);
    const id = created.body.id;
    const fresh = (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
    expect(fresh).toMatchObject({ status: 'created', presenter_id: PRESENTER, credits: 1, metadata: { voice: { type: 'flite', voice_id: 'en-US-flite-slt' } } });
    expect(fresh.result_url).toBeUndefined();
    await h.services.worker.drain();
    expect(voice.calls).toHaveLength(1);
    expect(voice.calls[0]).toMatchObject({ text: 'Maybe more bread please', voiceId: 'en-US-flite-slt', ssml: false });
    const rec = (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ id, object: 'clip', status: 'done', owner_id: u.id, name: 'first', user_data: 'ud-1', config: { result_format: 'mp4', logo: true } });
    expect(rec.result_url).toMatch(/^http:\/\/mimic\.test\/media\/.+\?expires=/);
    expect(rec.audio_url).toMatch(/audio\.wav\?expires=/);
    expect(rec.metadata.speech_duration).toBeGreaterThan(1);
    expect(rec.started_at).toBeDefined();
    expect(rec.completed_at).toBeDefined();
    // The render got the presenter, the speech (a real 16-bit WAV) and its phoneme cues, with sound.
    const call = (h.services.backend as ReturnType<typeof createFakeBackend>).calls[0]!;
    expect((h.services.backend as ReturnType<typeof createFakeBackend>).kinds[0]).toBe('clip.render');
    expect(call).toMatchObject({ mute: false, logo: { kind: 'default' }, driver: { kind: 'speech', seed: id } });
    expect(call.driver.kind === 'speech' && call.driver.cues.map((c) => c.phoneme).slice(0, 2)).toEqual(['P', 'AA']);
    const wav = storedFile(h.services.mediaStore, u.id, `clips/${id}/audio.wav`)!;
    const bytes = readFileSync(wav);
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt16LE(34)).toBe(16);
    expect(credits(h, u.id)).toBe(9);
  });

  it('charges one credit per started 15 s of estimated speech, and 402 when short (nothing stored)', async () => {
    const { h } = make();
    const u = h.user({ credits: 2 });
    const long = 'word '.repeat(Math.ceil((SECONDS_PER_CREDIT * 2.5 * CHARS_PER_SECOND) / 5));
    const res = await h.call('POST', '/clips', { key: u.key, body: text(long) });
    expect(res.status).toBe(402);
    expect(res.body.description).toMatch(/costs 3 credits/);
    expect((await h.call('GET', '/clips', { key: u.key })).body.clips).toEqual([]);
    const ok = await h.call('POST', '/clips', { key: u.key, body: text('word '.repeat(Math.ceil((SECONDS_PER_CREDIT * 1.5 * CHARS_PER_SECOND) / 5))) });
    expect(ok.status).toBe(201);
    expect(credits(h, u.id)).toBe(0);
  });

  it('uses the closest embedded voice for an unconfigured external one and says so', async () => {
    const { h, voice } = make();
    const u = h.user();
    const id = (await h.call('POST', '/clips', { key: u.key, body: text(undefined, { provider: { type: 'microsoft', voice_id: 'en-GB-RyanNeural' } }) })).body.id;
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
    expect(rec.metadata.voice).toMatchObject({ type: 'flite', voice_id: 'en-GB-flite-awb', fallback: { requested: { type: 'microsoft', voice_id: 'en-GB-RyanNeural' } } });
    expect(voice.calls[0]!.voiceId).toBe('en-GB-flite-awb');
  });

  it('passes SSML and voice_config.rate to the voice', async () => {
    const { h, voice } = make();
    const u = h.user();
    const input = '<speak>Maybe <break time="300ms"/> more bread</speak>';
    const res = await h.call('POST', '/clips', { key: u.key, body: text(input, { ssml: true, provider: { type: 'flite', voice_id: 'en-US-flite-slt', voice_config: { rate: 'slow' } } }) });
    expect(res.status).toBe(201);
    await h.services.worker.drain();
    expect(voice.calls[0]).toMatchObject({ text: input, ssml: true, rate: 0.75 });
    const bad = await h.call('POST', '/clips', { key: u.key, body: text(undefined, { provider: { type: 'flite', voice_id: 'en-US-flite-slt', voice_config: { rate: 'very fast' } } }) });
    expect(bad.status).toBe(400);
  });

  it('refunds on a render error and records {kind, description}', async () => {
    const { h } = make({}, { backend: createFakeBackend({ failWith: new RenderError('FaceError', 'no face detected') }) });
    const u = h.user({ credits: 5 });
    const id = (await h.call('POST', '/clips', { key: u.key, body: text() })).body.id;
    expect(credits(h, u.id)).toBe(4);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'error', error: { kind: 'FaceError', description: 'no face detected' } });
    expect(rec.result_url).toBeUndefined();
    expect(credits(h, u.id)).toBe(5);
  });

  it('keeps clips to their owner (404 across users), pages them newest first, deletes with a refund before done', async () => {
    const { h } = make();
    const u = h.user();
    const other = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.call('POST', '/clips', { key: u.key, body: text() })).body.id);
    expect((await h.call('GET', `/clips/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await h.call('DELETE', `/clips/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await h.call('GET', '/clips', { key: other.key })).body.clips).toEqual([]);
    const p1 = (await h.call('GET', '/clips?limit=2', { key: u.key })).body;
    expect(p1.clips.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const p2 = (await h.call('GET', `/clips?limit=2&token=${p1.token}`, { key: u.key })).body;
    expect(p2.clips.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(p2.token).toBeUndefined();
    expect((await h.call('GET', '/clips?limit=0', { key: u.key })).status).toBe(400);
    expect(credits(h, u.id)).toBe(7);
    const del = await h.call('DELETE', `/clips/${ids[0]}`, { key: u.key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: ids[0], status: 'created' });
    expect(credits(h, u.id)).toBe(8);
    expect((await h.call('GET', `/clips/${ids[0]}`, { key: u.key })).status).toBe(404);
    await h.services.worker.drain();
    // A finished clip is deleted without a refund, its media gone.
    const done = ids[1]!;
    expect((await h.call('GET', `/clips/${done}`, { key: u.key })).body.status).toBe('done');
    await h.call('DELETE', `/clips/${done}`, { key: u.key });
    expect(credits(h, u.id)).toBe(8);
    expect(storedFile(h.services.mediaStore, u.id, `clips/${done}/result.mp4`)).toBeNull();
  });

  it('sends the GET body to the webhook, signed', async () => {
    const receiver = await startTlsServer();
    try {
      receiver.handle((_req, res) => void res.writeHead(200).end());
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [receiver.ca] });
      const u = h.user();
      const id = (await h.call('POST', '/clips', { key: u.key, body: { ...text(), webhook: `${receiver.url}/hook`, user_data: 'ud' } })).body.id;
      await h.services.worker.drain();
      await h.services.modules.webhooks.dispatcher.runOnce();
      expect(receiver.received).toHaveLength(1);
      const { secret } = (await h.call('GET', '/webhooks/secret', { key: u.key })).body;
      const got = receiver.received[0]!;
      const body = new Webhook(secret).verify(got.body.toString(), got.headers as Record<string, string>) as any;
      const record = (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
      expect(Object.keys(body).sort()).toEqual(Object.keys(record).sort());
      expect(body).toMatchObject({ id, object: 'clip', status: 'done', user_data: 'ud', webhook: `${receiver.url}/hook` });
    } finally {
      await receiver.close();
    }
  });
});

describe('audio scripts', () => {
  it('speaks an audio uploaded with POST /audios, charged by its measured length', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-clip-audio-'));
    try {
      const { h, voice } = make();
      const u = h.user({ credits: 10 });
      const file = join(dir, 'a.mp3');
      const r = await runFfmpeg(['-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=16', '-c:a', 'libmp3lame', '-b:a', '32k', file]);
      expect(r.code).toBe(0);
      const form = new FormData();
      form.set('audio', new Blob([readFileSync(file)]), 'a.mp3');
      const up = (await (await h.app.request('/audios', { method: 'POST', headers: { authorization: `Basic ${u.key}` }, body: form })).json()) as { url: string };
      const created = await h.call('POST', '/clips', { key: u.key, body: { presenter_id: PRESENTER, script: { type: 'audio', audio_url: up.url } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      // 16 s: two started 15-second blocks.
      expect(credits(h, u.id)).toBe(8);
      await h.services.worker.drain();
      const rec = (await h.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
      expect(rec.status).toBe('done');
      expect(rec.metadata.voice).toBeUndefined();
      expect(rec.audio_url).toMatch(/audio\.mp3\?expires=/);
      expect(rec.metadata.speech_duration).toBeGreaterThan(15.5);
      expect(voice.calls).toHaveLength(0);
      const call = (h.services.backend as ReturnType<typeof createFakeBackend>).calls[0]!;
      expect(call.driver).toMatchObject({ kind: 'speech', cues: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('https audio scripts', () => {
  it('fetches the audio, charges the flat https rate, and ends in error (refunded) when it is longer than that covers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-clip-https-'));
    const receiver = await startTlsServer();
    try {
      const files: Record<string, Buffer> = {};
      for (const [name, seconds] of [['short', 2], ['long', 61]] as const) {
        const file = join(dir, `${name}.wav`);
        expect((await runFfmpeg(['-y', '-f', 'lavfi', '-i', `sine=frequency=300:duration=${seconds}`, '-ac', '1', '-ar', '8000', '-c:a', 'pcm_s16le', file])).code).toBe(0);
        files[`/${name}.wav`] = readFileSync(file);
      }
      receiver.handle((req, res) => {
        const body = files[req.path];
        if (!body) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'audio/wav' }).end(body);
      });
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [receiver.ca] });
      const u = h.user({ credits: 10 });
      const short = (await h.call('POST', '/clips', { key: u.key, body: { script: { type: 'audio', audio_url: `${receiver.url}/short.wav` } } })).body.id;
      const long = (await h.call('POST', '/clips', { key: u.key, body: { script: { type: 'audio', audio_url: `${receiver.url}/long.wav` } } })).body.id;
      expect(credits(h, u.id)).toBe(2);
      await h.services.worker.drain();
      const a = (await h.call('GET', `/clips/${short}`, { key: u.key })).body;
      expect(a, JSON.stringify(a.error)).toMatchObject({ status: 'done', credits: 4 });
      expect(a.audio_url).toMatch(/\/audio\.wav\?expires=/);
      const b = (await h.call('GET', `/clips/${long}`, { key: u.key })).body;
      expect(b).toMatchObject({ status: 'error', error: { kind: 'InvalidAudioDurationError' } });
      expect(b.error.description).toMatch(/at most 60 s/);
      expect(credits(h, u.id)).toBe(6);
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('background pictures fetched at render time', () => {
  it('ends the clip in error with BackgroundError (credits refunded) when the picture is missing or not an image, and renders on a good one', async () => {
    const receiver = await startTlsServer();
    try {
      const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).png().toBuffer();
      receiver.handle((req, res) => {
        if (req.path === '/good.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
        if (req.path === '/text.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end('not a picture');
        res.writeHead(404).end();
      });
      const { h } = make({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [receiver.ca] });
      const u = h.user({ credits: 10 });
      const post = async (path: string) =>
        (await h.call('POST', '/clips', { key: u.key, body: { ...text(), background: { source_url: `${receiver.url}${path}` } } })).body.id as string;
      const [gone, junk, good] = [await post('/gone.png'), await post('/text.png'), await post('/good.png')];
      expect(credits(h, u.id)).toBe(7);
      await h.services.worker.drain();
      const view = async (id: string) => (await h.call('GET', `/clips/${id}`, { key: u.key })).body;
      const a = await view(gone);
      expect(a).toMatchObject({ status: 'error', error: { kind: 'BackgroundError' } });
      expect(a.error.description).toMatch(/^Could not load the background image: host localhost answered HTTP 404/);
      const b = await view(junk);
      expect(b).toMatchObject({ status: 'error', error: { kind: 'BackgroundError' } });
      expect(b.error.description).toMatch(/background\.source_url: the file is not a jpg or png image/);
      expect(await view(good)).toMatchObject({ status: 'done' });
      const call = (h.services.backend as ReturnType<typeof createFakeBackend>).calls.find((c) => c.background?.kind === 'image');
      expect(call?.background).toMatchObject({ kind: 'image', path: expect.stringMatching(/background-download\.png$/) });
      expect(credits(h, u.id)).toBe(9);
    } finally {
      await receiver.close();
    }
  });
});
