import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { mediaRoutes, parseRange } from '../../src/downloads/routes.ts';
import { mountRoutes } from '../../src/http/mount.ts';
import { errorHandler } from '../../src/http/errors.ts';
import { silentLogger } from '../../src/log.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { createLocalMediaStore } from '../../src/media/store.ts';
import { signMediaUrl, verifyMediaSignature } from '../../src/media/signing.ts';
import { deriveKey } from '../../src/keys.ts';

const urlKey = deriveKey(Buffer.alloc(32, 9), 'signed-url');
const T0 = Date.UTC(2026, 0, 1);
let now = T0;
const clock = { now: () => now };
const store = createLocalMediaStore(mkdtempSync(join(tmpdir(), 'mimic-media-')));
// Mounted behind the app's real error boundary, which renders the route's ApiErrors.
const app = mountRoutes(new Hono<AppEnv>(), mediaRoutes({ store, urlKey, clock })).onError(errorHandler(silentLogger));
const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

const sign = (owner: string, objectKey: string, ttlSeconds = 3600) =>
  signMediaUrl({ publicUrl: 'http://localhost:8080', key: urlKey, owner, objectKey, ttlSeconds, now });
const get = (url: string, init?: RequestInit) => app.request(url.replace('http://localhost:8080', ''), init);

beforeAll(async () => {
  now = T0;
  await store.put('usr_a', 'results/clip.mp4', video, 'video/mp4');
  await store.put('usr_b', 'results/clip.mp4', Buffer.from('B'), 'video/mp4');
});

describe('signatures', () => {
  it('sign then verify; expiry; tampering', () => {
    const url = new URL(sign('usr_a', 'results/clip.mp4', 60));
    const expires = url.searchParams.get('expires')!;
    const signature = url.searchParams.get('signature')!;
    const check = (o: Partial<Parameters<typeof verifyMediaSignature>[0]>) =>
      verifyMediaSignature({ key: urlKey, owner: 'usr_a', objectKey: 'results/clip.mp4', expires, signature, now, ...o });
    expect(check({})).toBe('ok');
    expect(check({ now: now + 59_999 })).toBe('ok');
    expect(check({ now: now + 60_000 })).toBe('expired');
    expect(check({ owner: 'usr_b' })).toBe('invalid');
    expect(check({ objectKey: 'results/other.mp4' })).toBe('invalid');
    expect(check({ expires: String(Number(expires) + 1) })).toBe('invalid');
    expect(check({ key: deriveKey(Buffer.alloc(32, 8), 'signed-url') })).toBe('invalid');
    expect(check({ signature: undefined })).toBe('invalid');
    expect(check({ signature: signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A') })).toBe('invalid');
    expect(check({ expires: '1e12' })).toBe('invalid');
  });

  it('accepts only the canonical spelling of a signature (no base64url padding-bit variants)', () => {
    const url = new URL(sign('usr_a', 'results/clip.mp4', 60));
    const signature = url.searchParams.get('signature')!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    for (let bits = 0; bits < 4; bits++) {
      const variant = signature.slice(0, -1) + alphabet[(last & ~3) | bits];
      const result = verifyMediaSignature({
        key: urlKey, owner: 'usr_a', objectKey: 'results/clip.mp4', expires: url.searchParams.get('expires')!, signature: variant, now,
      });
      expect(result).toBe(variant === signature ? 'ok' : 'invalid');
    }
  });
});

describe('GET /media/*', () => {
  it('serves the object with type, length, ranges and private caching', async () => {
    const res = await get(sign('usr_a', 'results/clip.mp4'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('cache-control')).toBe('private');
    expect(Buffer.from(await res.arrayBuffer()).equals(video)).toBe(true);
  });

  it('answers ranges with 206 and the right bytes', async () => {
    const url = sign('usr_a', 'results/clip.mp4');
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=900-', 900, 999],
      ['bytes=-10', 990, 999],
      ['bytes=990-5000', 990, 999],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(url, { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers.get('content-length')).toBe(String(end - start + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(video.subarray(start, end + 1)), range).toBe(true);
    }
    const unsatisfiable = await get(url, { headers: { range: 'bytes=1000-' } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe('bytes */1000');
    // Several ranges or a stale If-Range: the whole file.
    expect((await get(url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200);
    expect((await get(url, { headers: { range: 'bytes=0-1', 'if-range': '"stale"' } })).status).toBe(200);
  });

  it('HEAD answers headers only', async () => {
    const res = await get(sign('usr_a', 'results/clip.mp4'), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('refuses missing, tampered and swapped signatures with 403 PermissionError', async () => {
    const good = new URL(sign('usr_a', 'results/clip.mp4'));
    const variants = [
      good.pathname,
      `${good.pathname}?expires=${good.searchParams.get('expires')}`,
      good.pathname.replace('usr_a', 'usr_b') + good.search,
      good.pathname.replace('clip.mp4', 'clip2.mp4') + good.search,
      `${good.pathname}?expires=${Number(good.searchParams.get('expires')) + 3600}&signature=${good.searchParams.get('signature')}`,
    ];
    for (const path of variants) {
      const res = await app.request(path);
      expect(res.status, path).toBe(403);
      expect(await res.json()).toEqual({ kind: 'PermissionError', description: 'The media URL signature is missing or invalid' });
    }
  });

  it('says when a genuine URL has expired', async () => {
    const url = sign('usr_a', 'results/clip.mp4', 10);
    now += 11_000;
    try {
      const res = await get(url);
      expect(res.status).toBe(403);
      const body = (await res.json()) as { kind: string; description: string };
      expect(body.kind).toBe('PermissionError');
      expect(body.description).toMatch(/expired/);
    } finally {
      now = T0;
    }
  });

  it('404 for a signed URL of a missing object; traversal is never served', async () => {
    const res = await get(sign('usr_a', 'results/none.mp4'));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ kind: 'NotFoundError', description: 'The media object was not found' });
    // Even a correctly signed traversal key finds nothing outside the owner folder.
    for (const key of ['../usr_b/results/clip.mp4', '..%2Fusr_b/results/clip.mp4']) {
      const traversal = await get(sign('usr_a', key));
      expect(traversal.status, key).not.toBe(200);
    }
  });

  it('keys with encoded characters round-trip through the URL', async () => {
    await store.put('usr_a', 'b/x+y=1@z,w.png', Buffer.from('p'), 'image/png');
    const res = await get(sign('usr_a', 'b/x+y=1@z,w.png'));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('p');
  });
});

describe('parseRange', () => {
  it.each([
    [undefined, null],
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=5-2', null],
    ['items=0-1', null],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=-', null],
  ] as const)('%s', (header, expected) => {
    expect(parseRange(header, 10)).toEqual(expected);
  });
});
