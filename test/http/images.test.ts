import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { harness, type Harness } from '../helpers/harness.ts';
import { ROOT } from '../helpers/cli.ts';

let h: Harness;
beforeAll(() => {
  h = harness({ MIMIC_MAX_IMAGE_BYTES: String(2 * 1024 * 1024) });
});
afterAll(() => h.close());

const upload = (key: string, bytes: Buffer | string, field = 'image') => {
  const form = new FormData();
  form.set(field, new Blob([bytes]), 'photo.png');
  return h.app.request('/images', { method: 'POST', headers: { authorization: `Basic ${key}` }, body: form });
};

describe('POST /images', () => {
  it('stores a photo and answers with a storage URL that source_url accepts, for its owner only', async () => {
    const u = h.user();
    const res = await upload(u.key, readFileSync(join(ROOT, 'assets/sample-source.png')));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; url: string };
    expect(body.url).toMatch(/^s3:\/\/images\/img_\w+\.png$/);
    expect((await h.call('POST', '/animations', { key: u.key, body: { source_url: body.url } })).status).toBe(201);
    const other = h.user();
    expect((await h.call('POST', '/animations', { key: other.key, body: { source_url: body.url } })).status).toBe(400);
  });

  it.each([
    ['a text file', 'hello, not an image'],
    ['a truncated png', readFileSync(join(ROOT, 'assets/sample-source.png')).subarray(0, 100)],
  ])('refuses %s with 400', async (_n, bytes) => {
    const res = await upload(h.user().key, bytes);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { kind: string }).kind).toBe('BadRequestError');
  });

  it('refuses a form without an image field, and a JSON body', async () => {
    const u = h.user();
    expect((await upload(u.key, 'x', 'file')).status).toBe(400);
    expect((await h.call('POST', '/images', { key: u.key, body: {} })).status).toBe(400);
  });

  it('refuses an image over the size limit', async () => {
    const res = await upload(h.user().key, Buffer.alloc(2 * 1024 * 1024 + 1, 0xff));
    expect([400, 413]).toContain(res.status);
    const body = (await res.json()) as { kind: string };
    expect(['InvalidFileSizeError', 'PayloadTooLargeError']).toContain(body.kind);
  });

  it('needs an API key', async () => {
    const form = new FormData();
    form.set('image', new Blob(['x']), 'a.png');
    expect((await h.app.request('/images', { method: 'POST', body: form })).status).toBe(401);
  });
});
