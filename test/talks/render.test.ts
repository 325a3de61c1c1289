/**
 * A talk rendered for real, end to end: the tone voice makes real speech-shaped audio, the local
 * CPU backend makes the uploaded photo speak it, and the result is checked on the file. A photo
 * without a face ends the talk in error, refunded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Harness } from '../helpers/harness.ts';
import { toneSpeech } from '../helpers/tone-voice.ts';
import { videoFacts } from '../helpers/video.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { PHOTO, credits, talkHarness, uploadPhoto } from './helpers.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness;
let dir: string;
beforeAll(() => {
  h = talkHarness({}, { backend: createLocalBackend() }).h;
  dir = mkdtempSync(join(tmpdir(), 'mimic-talk-render-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const SCRIPT = 'Maybe more bread please';

describe('a talk rendered on the CPU', () => {
  it('is the photo speaking: video and sound as long as the speech, and a pending_url while it renders', async () => {
    const u = h.user();
    const photo = await uploadPhoto(h, u.key);
    const created = await h.call('POST', '/talks', { key: u.key, body: { source_url: photo, script: { type: 'text', input: SCRIPT }, config: { logo: false } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(rec.status, JSON.stringify(rec.error)).toBe('done');
    const speechSec = toneSpeech(SCRIPT, 'en-US-flite-slt').durationMs / 1000;
    expect(rec.metadata.speech_duration).toBeCloseTo(speechSec, 2);
    expect(Math.abs(rec.duration - speechSec)).toBeLessThan(0.1);

    const facts = videoFacts(storedFile(h.services.mediaStore, u.id, `talks/${id}/result.mp4`)!);
    expect(facts).toMatchObject({ hasVideo: true, hasAudio: true, decodeErrors: '' });
    expect([String(facts.width), String(facts.height)]).toEqual(rec.metadata.resolution);
    expect(Math.abs(facts.durationSec - speechSec)).toBeLessThan(0.15);

    // The playlist written while it rendered: pending_url shows it while the talk is started (set
    // back here, as a render this short is over before a test could look).
    expect(rec.pending_url).toBeUndefined();
    sqliteOf(h.services.store).sqlite.prepare("UPDATE resources SET status = 'started', finished_at = NULL WHERE id = ?").run(id);
    const started = (await h.call('GET', `/talks/${id}`, { key: u.key })).body;
    expect(started.pending_url).toMatch(new RegExp(`^http://mimic\\.test/talks/${id}/pending/\\d+\\.[A-Za-z0-9_-]{43}/index\\.m3u8$`));
    const playlistUrl = new URL(started.pending_url);
    const playlist = await h.app.request(playlistUrl.pathname);
    expect(playlist.status).toBe(200);
    const text = await playlist.text();
    const segments = text.split('\n').filter((l) => l.endsWith('.ts'));
    expect(segments.length).toBeGreaterThan(0);
    const seg = await h.app.request(new URL(segments[0]!, playlistUrl).pathname);
    expect(seg.status).toBe(200);
    expect(Buffer.from(await seg.arrayBuffer())[0]).toBe(0x47);
    // The talk's signature opens no clip's path, and a tampered one is refused.
    expect((await h.app.request(playlistUrl.pathname.replace(`/talks/${id}/`, `/clips/${id}/`))).status).toBe(403);
    const tampered = playlistUrl.pathname.replace(/\.([A-Za-z0-9_-])/, (_m, ch: string) => `.${ch === 'A' ? 'B' : 'A'}`);
    expect((await h.app.request(tampered)).status).toBe(403);
    expect((await h.call('DELETE', `/talks/${id}`, { key: u.key })).status).toBe(200);
    expect((await h.app.request(playlistUrl.pathname)).status).toBe(404);
  }, 240_000);

  it('with config.stitch, puts the speaking face back into the whole photo (the result has the photo\'s size)', async () => {
    const u = h.user({ permissions: ['stitch'] });
    const wide = join(dir, 'wide.png');
    await sharp(PHOTO).extend({ left: 96, right: 32, background: '#808080' }).png().toFile(wide);
    const photo = await uploadPhoto(h, u.key, wide, 'wide.png');
    const created = await h.call('POST', '/talks', { key: u.key, body: { source_url: photo, script: { type: 'text', input: 'Bob' }, config: { stitch: true, logo: false, result_format: 'mov' } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${created.body.id}`, { key: u.key })).body;
    expect(rec, JSON.stringify(rec.error)).toMatchObject({ status: 'done', config: { stitch: true, result_format: 'mov' }, metadata: { resolution: ['640', '512'] } });
    const facts = videoFacts(storedFile(h.services.mediaStore, u.id, `talks/${created.body.id}/result.mov`)!);
    expect(facts).toMatchObject({ brand: 'qt  ', hasVideo: true, hasAudio: true, width: 640, height: 512 });
  }, 240_000);

  it('ends in FaceError, refunded, on a photo without a face', async () => {
    const u = h.user({ credits: 3 });
    const w = 256, ht = 256;
    const px = Buffer.alloc(w * ht * 3);
    for (let y = 0; y < ht; y++) for (let x = 0; x < w; x++) px.set([x, y, (x * y) % 256], (y * w + x) * 3);
    const file = join(dir, 'gradient.png');
    await sharp(px, { raw: { width: w, height: ht, channels: 3 } }).png().toFile(file);
    const photo = await uploadPhoto(h, u.key, file, 'gradient.png');
    const created = await h.call('POST', '/talks', { key: u.key, body: { source_url: photo, script: { type: 'text', input: SCRIPT } } });
    expect(created.status).toBe(201);
    expect(credits(h, u.id)).toBe(2);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/talks/${created.body.id}`, { key: u.key })).body;
    expect(rec).toMatchObject({ status: 'error', error: { kind: 'FaceError' } });
    expect(rec.error.description).toMatch(/no face/);
    expect(credits(h, u.id)).toBe(3);
  }, 120_000);
});
