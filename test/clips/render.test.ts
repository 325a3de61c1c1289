/**
 * A clip rendered for real, end to end: the test-double voice makes real speech-shaped audio,
 * the local CPU backend renders the built-in presenter speaking it, and the result is checked
 * on the file: a video with its sound, as long as the speech, and a mouth that follows it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue, toneSpeech } from '../helpers/tone-voice.ts';
import { meanColour, rgbFrame, rgbaFrame, videoFacts } from '../helpers/video.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { bilabialClosure, LIP_SYNC_GOALS, lipSyncMisses, measureLipSync } from '../../src/compute/local/lipsync.ts';
import { int16Wav } from '../../src/speaking/speech.ts';
import { createFliteProvider } from '../../src/voices/flite/index.ts';
import { VoicePool } from '../../src/voices/pool.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterAll(async () => {
  await h?.close();
});

const SCRIPT = 'Maybe more bread please';

describe('a clip rendered on the CPU', () => {
  it('has video and sound as long as the speech, at the asked resolution, and lips that move with it', async () => {
    const tone = toneCatalogue();
    h = harness({}, { voices: tone.catalogue, backend: createLocalBackend() });
    const u = h.user();
    const created = await h.call('POST', '/clips', { key: u.key, body: { presenter_id: 'eileen-Nc7kQ2rT5x', script: { type: 'text', input: SCRIPT }, config: { logo: false, output_resolution: 256 } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
    expect(rec.status, JSON.stringify(rec.error)).toBe('done');
    const speechSec = toneSpeech(SCRIPT, 'en-US-flite-slt').durationMs / 1000;
    expect(rec.metadata.speech_duration).toBeCloseTo(speechSec, 2);
    expect(rec.metadata.resolution).toEqual(['256', '256']);
    expect(Math.abs(rec.duration - speechSec)).toBeLessThan(0.1);

    const file = storedFile(h.services.mediaStore, u.id, `clips/${created.body.id}/result.mp4`)!;
    const facts = videoFacts(file);
    expect(facts).toMatchObject({ hasVideo: true, hasAudio: true, width: 256, height: 256, decodeErrors: '' });
    expect(Math.abs(facts.durationSec - speechSec)).toBeLessThan(0.15);

    const sync = await measureLipSync(file);
    const range = Math.max(...sync.mouth) - Math.min(...sync.mouth);
    expect(range).toBeGreaterThan(0.1);
    expect(sync.correlation).toBeGreaterThan(0.3);
    const closure = bilabialClosure(sync.mouth, sync.fps, toneSpeech(SCRIPT, 'en-US-flite-slt').phonemes);
    expect(closure.count).toBeGreaterThan(0);
    expect(closure.bilabial).toBeLessThan(closure.vowel);
    expect(Math.abs(sync.offsetMs)).toBeLessThanOrEqual(40);

    // The video was also written as an HLS playlist while it rendered: pending_url shows it while
    // the clip is started (set back here, as a render this short is over before a test could look).
    expect(rec.pending_url).toBeUndefined();
    sqliteOf(h.services.store).sqlite.prepare("UPDATE resources SET status = 'started', finished_at = NULL WHERE id = ?").run(created.body.id);
    const started = (await h.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
    expect(started.pending_url).toMatch(new RegExp(`^http://mimic\\.test/clips/${created.body.id}/pending/\\d+\\.[A-Za-z0-9_-]{43}/index\\.m3u8$`));
    const playlistUrl = new URL(started.pending_url);
    const playlist = await h.app.request(playlistUrl.pathname);
    expect(playlist.status).toBe(200);
    expect(playlist.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const text = await playlist.text();
    expect(text).toContain('#EXTM3U');
    const segments = text.split('\n').filter((l) => l.endsWith('.ts'));
    expect(segments.length).toBeGreaterThan(0);
    // Segment names are relative: they resolve under the same signed path.
    const seg = await h.app.request(new URL(segments[0]!, playlistUrl).pathname);
    expect(seg.status).toBe(200);
    expect(seg.headers.get('content-type')).toBe('video/mp2t');
    expect(Buffer.from(await seg.arrayBuffer())[0]).toBe(0x47);
    // A tampered signature is refused, another clip's path too, and a file outside the playlist is not served.
    const tampered = playlistUrl.pathname.replace(/\.([A-Za-z0-9_-])/, (_m, ch: string) => `.${ch === 'A' ? 'B' : 'A'}`);
    expect((await h.app.request(tampered)).status).toBe(403);
    expect((await h.app.request(playlistUrl.pathname.replace(created.body.id, 'clp_other'))).status).toBe(403);
    expect((await h.app.request(playlistUrl.pathname.replace('index.m3u8', 'secret.txt'))).status).toBe(404);
    // Deleting the clip removes its pending video.
    expect((await h.call('DELETE', `/clips/${created.body.id}`, { key: u.key })).status).toBe(200);
    expect((await h.app.request(playlistUrl.pathname)).status).toBe(404);
  }, 240_000);

  it('renders a mov with the default logo at the picture\'s frame', async () => {
    const u = h!.user();
    const created = await h!.call('POST', '/clips', { key: u.key, body: { script: { type: 'text', input: 'Bob' }, config: { result_format: 'mov' } } });
    expect(created.status).toBe(201);
    await h!.services.worker.drain();
    const rec = (await h!.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'done', presenter_id: 'eileen-Nc7kQ2rT5x', config: { result_format: 'mov', logo: true } });
    const facts = videoFacts(storedFile(h!.services.mediaStore, u.id, `clips/${created.body.id}/result.mov`)!);
    expect(facts).toMatchObject({ brand: 'qt  ', hasVideo: true, hasAudio: true, width: 512, height: 512 });
  }, 240_000);

  it('renders a transparent webm through POST /clips, alpha kept when output_resolution rescales it, and a colour background', async () => {
    const u = h!.user();
    const clear = await h!.call('POST', '/clips', {
      key: u.key,
      body: { presenter_id: 'grace-Hq4mW8zL2c', script: { type: 'text', input: 'Bob' }, background: { color: false }, config: { result_format: 'webm', logo: false, output_resolution: 256 } },
    });
    expect(clear.status, JSON.stringify(clear.body)).toBe(201);
    const coloured = await h!.call('POST', '/clips', {
      key: u.key,
      body: { presenter_id: 'grace-Hq4mW8zL2c', script: { type: 'text', input: 'Bob' }, background: { color: '#2040ff' }, config: { logo: false } },
    });
    expect(coloured.status, JSON.stringify(coloured.body)).toBe(201);
    await h!.services.worker.drain();
    const rec = (await h!.call('GET', `/clips/${clear.body.id}`, { key: u.key })).body;
    expect(rec, JSON.stringify(rec.error)).toMatchObject({ status: 'done', config: { result_format: 'webm' }, metadata: { resolution: ['256', '256'] } });
    expect(rec.result_url).toMatch(/result\.webm\?expires=/);
    const file = storedFile(h!.services.mediaStore, u.id, `clips/${clear.body.id}/result.webm`)!;
    const rgba = rgbaFrame(file, 5, 256, 256);
    const alpha = (x: number, y: number) => rgba[(y * 256 + x) * 4 + 3]!;
    expect(alpha(2, 2)).toBeLessThan(10);
    expect(alpha(253, 2)).toBeLessThan(10);
    expect(alpha(128, 120)).toBeGreaterThan(245);

    const other = (await h!.call('GET', `/clips/${coloured.body.id}`, { key: u.key })).body;
    expect(other, JSON.stringify(other.error)).toMatchObject({ status: 'done', config: { result_format: 'mp4' } });
    const frame = rgbFrame(storedFile(h!.services.mediaStore, u.id, `clips/${coloured.body.id}/result.mp4`)!, 5, 512, 512);
    const corner = meanColour(frame, 512, { x: 4, y: 4, w: 20, h: 20 });
    expect(corner.map(Math.round).every((v, i) => Math.abs(v - [32, 64, 255][i]!) <= 12)).toBe(true);
  }, 240_000);

  it('speaks an audio script (POST /audios, no phoneme timings): the lips read from the sound, in time, shut on p, b and m', async () => {
    // Real speech whose phoneme timings are known (Flite), uploaded as a plain WAV: the clip gets
    // the sound only, and the timings are kept here to judge the lips by.
    const pool = new VoicePool({ size: 1, warm: false });
    const speech = await createFliteProvider({ pool }).synthesize({ text: 'Bobby bought a big map. Pam made maple pie.', voiceId: 'en-US-flite-slt' }).finally(() => pool.close());
    h ??= harness({}, { voices: toneCatalogue().catalogue, backend: createLocalBackend() });
    const u = h.user();
    const form = new FormData();
    form.set('audio', new Blob([int16Wav(speech.pcm, speech.sampleRate)]), 'speech.wav');
    const up = await h!.app.request('/audios', { method: 'POST', headers: { authorization: `Basic ${u.key}` }, body: form });
    expect(up.status).toBe(201);
    const { url } = (await up.json()) as { url: string };
    const created = await h!.call('POST', '/clips', { key: u.key, body: { presenter_id: 'grace-Hq4mW8zL2c', script: { type: 'audio', audio_url: url }, config: { logo: false } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h!.services.worker.drain();
    const rec = (await h!.call('GET', `/clips/${created.body.id}`, { key: u.key })).body;
    expect(rec.status, JSON.stringify(rec.error)).toBe('done');
    const sync = await measureLipSync(storedFile(h!.services.mediaStore, u.id, `clips/${created.body.id}/result.mp4`)!);
    const closure = bilabialClosure(sync.mouth, sync.fps, speech.phonemes);
    expect(Math.abs(sync.offsetMs)).toBeLessThanOrEqual(LIP_SYNC_GOALS.maxOffsetMs);
    expect(sync.correlation).toBeGreaterThan(0.3);
    expect(closure.count).toBeGreaterThanOrEqual(10);
    expect(lipSyncMisses(sync, closure)).toEqual([]);
  }, 240_000);
});
