/** POST /videos: a video's bytes streamed to the caller's media store, checked, answered with a storage URL. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { consentVideo } from '../helpers/avatar-videos.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const post = (h: Harness, key: string, body: Uint8Array, type = 'video/mp4') =>
  h.app.request('/videos', { method: 'POST', headers: { authorization: `Basic ${key}`, 'content-type': type }, body });

describe('POST /videos', () => {
  it('stores a video and answers its storage URL, length, size and sound; delete removes it, for its owner only', async () => {
    h = harness();
    const u = h.user(), other = h.user();
    const bytes = readFileSync(await consentVideo({ text: 'Hello there, this is a short test video with some words in it.' }));
    const res = await post(h, u.key, bytes);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({ width: 512, height: 512, has_audio: true, size: bytes.length });
    expect(body.url).toBe(`s3://videos/${body.id}.mp4`);
    expect(body.duration).toBeGreaterThan(2);
    expect(storedFile(h.services.mediaStore, u.id, `videos/${body.id}.mp4`)).not.toBeNull();
    expect((await h.call('DELETE', `/videos/${body.id}`, { key: other.key })).status).toBe(404);
    expect((await h.call('DELETE', `/videos/${body.id}`, { key: u.key })).body).toEqual({ id: body.id, deleted: true });
    expect((await h.call('DELETE', `/videos/${body.id}`, { key: u.key })).status).toBe(404);
    expect((await h.call('DELETE', '/videos/../../x', { key: u.key })).status).toBe(404);
  }, 120_000);

  it('refuses what is not a decodable video, an empty body, and one over the limit, storing nothing', async () => {
    h = harness({ MIMIC_VIDEO_UPLOAD_MAX_BYTES: String(1024 * 1024) });
    const u = h.user();
    const junk = await post(h, u.key, Buffer.from('not a video'.repeat(50)));
    expect([junk.status, ((await junk.json()) as { kind: string }).kind]).toEqual([400, 'BadRequestError']);
    const fake = Buffer.concat([Buffer.from('0000001866747970697336d0000000000', 'hex'), Buffer.alloc(2000)]);
    fake.write('ftypisom', 4, 'latin1');
    const broken = await post(h, u.key, fake);
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { description: string }).description).toMatch(/does not decode/);
    expect((await post(h, u.key, new Uint8Array())).status).toBe(400);
    const big = await post(h, u.key, Buffer.alloc(1024 * 1024 + 1, 1), 'application/octet-stream');
    expect([big.status, ((await big.json()) as { kind: string }).kind]).toEqual([413, 'PayloadTooLargeError']);
    expect((await h.app.request('/videos', { method: 'POST', body: Buffer.alloc(10) })).status).toBe(401);
    expect(storedFile(h.services.mediaStore, u.id, 'videos')).toBeNull();
  }, 120_000);
});
