/**
 * GET /videos/uploads: the caller's uploads not expired, newest first, with offsets and
 * metadata, so a client that lost an upload's URL (the studio's page reloaded) finds it again
 * by its file's name, size and modification time. Another user's uploads never show.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function send(h: Harness, key: string, method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array) {
  const res = await h.app.request(path, { method, headers: { authorization: `Basic ${key}`, ...headers }, ...(body ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

describe('GET /videos/uploads', () => {
  it('lists your uploads newest first with offset and metadata and not another user\'s', async () => {
    h = harness();
    const u = h.user(), other = h.user();
    expect((await send(h, u.key, 'GET', '/videos/uploads')).body).toEqual({ uploads: [] });

    const first = await send(h, u.key, 'POST', '/videos/uploads', { ...TUS, 'upload-length': '100', 'upload-metadata': `filename ${b64('a.mp4')},lastmodified ${b64('1700000000000')}` });
    const second = await send(h, u.key, 'POST', '/videos/uploads', { ...TUS, 'upload-length': '200', 'upload-metadata': `filename ${b64('b.mp4')}` });
    await send(h, other.key, 'POST', '/videos/uploads', { ...TUS, 'upload-length': '300' });
    const part = await send(h, u.key, 'PATCH', `/videos/uploads/${first.body!.id}`, { ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, new Uint8Array(40));
    expect(part.status).toBe(204);

    const listed = await send(h, u.key, 'GET', '/videos/uploads');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.headers.get('tus-resumable')).toBe('1.0.0');
    expect(listed.body!.uploads.map((x: { id: string }) => x.id).sort()).toEqual([first.body!.id, second.body!.id].sort());
    expect(listed.body!.uploads.map((x: { id: string }) => x.id)[0]).toBe(second.body!.id);
    const a = listed.body!.uploads.find((x: { id: string }) => x.id === first.body!.id);
    expect(a).toMatchObject({ status: 'uploading', offset: 40, length: 100, metadata: { filename: 'a.mp4', lastmodified: '1700000000000' } });

    // The other user sees only theirs; a deleted one is gone.
    expect((await send(h, other.key, 'GET', '/videos/uploads')).body!.uploads).toHaveLength(1);
    expect((await send(h, u.key, 'DELETE', `/videos/uploads/${second.body!.id}`, TUS)).status).toBe(204);
    expect((await send(h, u.key, 'GET', '/videos/uploads')).body!.uploads.map((x: { id: string }) => x.id)).toEqual([first.body!.id]);
  });

  it('needs a key', async () => {
    h = harness();
    expect((await h.app.request('/videos/uploads')).status).toBe(401);
  });
});
