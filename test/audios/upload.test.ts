import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, type Harness } from '../helpers/harness.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness;
const dir = mkdtempSync(join(tmpdir(), 'mimic-audios-'));

/** A real file of `seconds` of a 440 Hz tone, encoded by ffmpeg with `args`. */
async function tone(name: string, seconds: number, args: string[]): Promise<Buffer> {
  const file = join(dir, name);
  const res = await runFfmpeg(['-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, ...args, file]);
  if (res.code !== 0) throw new Error(res.stderr.slice(-500));
  return readFileSync(file);
}

beforeAll(() => {
  h = harness();
});
afterAll(() => {
  h.close();
  rmSync(dir, { recursive: true, force: true });
});

const upload = (key: string, bytes: Buffer | string, field = 'audio') => {
  const form = new FormData();
  form.set(field, new Blob([bytes]), 'speech.bin');
  return h.app.request('/audios', { method: 'POST', headers: { authorization: `Basic ${key}` }, body: form });
};

describe('POST /audios', () => {
  it.each([
    ['wav', ['-c:a', 'pcm_s16le']],
    ['flac', ['-c:a', 'flac']],
    ['mp3', ['-c:a', 'libmp3lame', '-b:a', '64k']],
    ['m4a', ['-c:a', 'aac', '-b:a', '64k']],
    ['mp4', ['-c:a', 'aac', '-b:a', '64k']],
  ])('stores a %s file and answers its storage URL and measured duration', async (ext, args) => {
    const bytes = await tone(`tone.${ext}`, 2, args as string[]);
    const u = h.user();
    const res = await upload(u.key, bytes);
    const body = (await res.json()) as { id: string; url: string; duration: number };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.id).toMatch(/^aud_\w+$/);
    expect(body.url).toBe(`s3://audios/${body.id}/audio.${ext}`);
    expect(body.duration).toBeGreaterThan(1.9);
    expect(body.duration).toBeLessThan(2.2);
    // Stored byte for byte in the owner's media store.
    const stored = storedFile(h.services.mediaStore, u.id, `audios/${body.id}/audio.${ext}`);
    expect(stored && readFileSync(stored).equals(bytes)).toBe(true);
  });

  it('refuses audio longer than 5 minutes with InvalidAudioDurationError', async () => {
    const bytes = await tone('long.wav', 301, ['-ar', '8000', '-c:a', 'pcm_u8']);
    const res = await upload(h.user().key, bytes);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ kind: 'InvalidAudioDurationError', details: [{ field: 'audio' }] });
  });

  it.each([
    ['a text file', () => Buffer.from('hello, this is not audio at all')],
    ['an empty file', () => Buffer.alloc(0)],
    ['a wav header with no samples that decode', () => Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(8, 0xee)])],
  ])('refuses %s with a 400 BadRequestError naming the field', async (_n, bytes) => {
    const res = await upload(h.user().key, bytes());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ kind: 'BadRequestError', details: [{ field: 'audio' }] });
  });

  it('refuses an mp4 that has no sound', async () => {
    const file = join(dir, 'silent-video.mp4');
    const res0 = await runFfmpeg(['-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x64:d=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file]);
    expect(res0.code).toBe(0);
    const res = await upload(h.user().key, readFileSync(file));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { description: string }).description).toMatch(/no audio stream/);
  });

  it('refuses a file over 15 MB, and a form without an audio field, and a JSON body', async () => {
    const u = h.user();
    const big = await upload(u.key, Buffer.concat([Buffer.from('RIFF\x00\x00\x00\x00WAVE', 'latin1'), Buffer.alloc(15 * 1024 * 1024)]));
    expect([400, 413]).toContain(big.status);
    expect(['InvalidFileSizeError', 'PayloadTooLargeError']).toContain(((await big.json()) as { kind: string }).kind);
    expect((await upload(u.key, 'x', 'file')).status).toBe(400);
    expect((await h.call('POST', '/audios', { key: u.key, body: {} })).status).toBe(400);
  });
});

describe('DELETE /audios/{id}', () => {
  it("removes the owner's audio; another user, an unknown id and a second delete get 404", async () => {
    const owner = h.user();
    const other = h.user();
    const { id } = (await (await upload(owner.key, await tone('del.wav', 1, ['-c:a', 'pcm_s16le']))).json()) as { id: string };
    expect((await h.call('DELETE', `/audios/${id}`, { key: other.key })).status).toBe(404);
    const res = await h.call('DELETE', `/audios/${id}`, { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect(storedFile(h.services.mediaStore, owner.id, `audios/${id}/audio.wav`)).toBeNull();
    expect((await h.call('DELETE', `/audios/${id}`, { key: owner.key })).status).toBe(404);
    expect((await h.call('DELETE', '/audios/..%2Fimages', { key: owner.key })).status).toBe(404);
  });
});
