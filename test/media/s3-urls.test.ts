import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { mediaRoutes } from '../../src/downloads/routes.ts';
import { errorHandler } from '../../src/http/errors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { mountRoutes } from '../../src/http/mount.ts';
import { deriveKey } from '../../src/keys.ts';
import { silentLogger } from '../../src/log.ts';
import { createMediaAccess } from '../../src/media/access.ts';
import { presignGet, uriEncode } from '../../src/media/s3-presign.ts';
import { createS3MediaStore, type S3MediaStore } from '../../src/media/s3-store.ts';
import { signMediaUrl } from '../../src/media/signing.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

const swift = swiftOrSkip('test/media/s3-urls.test.ts');
const video = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

describe('presigned GET URLs (synchronous SigV4)', () => {
  const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
  const now = Date.UTC(2026, 10, 28, 10, 45, 7, 123);
  it.each([
    ['path style on a custom endpoint', { endpoint: 'http://127.0.0.1:9000', forcePathStyle: true }, 'http://127.0.0.1:9000', (b: string, k: string) => `/${b}/${k}`],
    ['virtual-hosted style on AWS', { forcePathStyle: false }, 'https://media-bucket.s3.eu-west-1.amazonaws.com', (_b: string, k: string) => `/${k}`],
  ] as const)('are byte for byte the AWS SDK presigner\'s: %s', async (_name, style, origin, path) => {
    // Configured as the store's client is (src/media/s3-store.ts): no checksums asked for or sent.
    const client = new S3Client({ region: 'eu-west-1', credentials, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED', ...style });
    for (const key of ['usr_a/animations/anm_1/result.mp4', 'p/usr_b/x+y=1@z,w~v.png']) {
      const sdk = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'media-bucket', Key: key }), { expiresIn: 900, signingDate: new Date(now) });
      const ours = presignGet({ origin, path: path('media-bucket', key.split('/').map(uriEncode).join('/')), region: 'eu-west-1', ...credentials }, 900, now);
      expect(ours).toBe(sdk);
    }
    client.destroy();
  });
});

describe.skipIf(!swift)('media URLs against Swift', () => {
  let store: S3MediaStore;
  const clock = { now: () => Date.now() };
  const urlKey = deriveKey(Buffer.alloc(32, 9), 'signed-url');
  beforeAll(async () => {
    store = createS3MediaStore((await freshBucket(swift!)).settings, { cacheDir: mkdtempSync(join(tmpdir(), 'mimic-s3-cache-')) });
    await store.put('usr_a', 'results/clip.mp4', video, 'video/mp4');
  });

  it('a presigned GET downloads the object, with Range; Swift refuses it tampered, for another key, or expired', async () => {
    const url = store.presignGet('usr_a', 'results/clip.mp4', 60, clock.now());
    expect(url.startsWith(`${swift!.endpoint}/`)).toBe(true);
    expect(url).not.toContain(swift!.secretAccessKey);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await ok.arrayBuffer()).equals(video)).toBe(true);
    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(10, 20))).toBe(true);

    const tampered = url.replace(/X-Amz-Signature=(.)/, (_m, c: string) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`);
    expect((await fetch(tampered)).status).toBe(403);
    await store.put('usr_b', 'results/clip.mp4', Buffer.from('B'), 'video/mp4');
    expect((await fetch(url.replace('/usr_a/', '/usr_b/'))).status).toBe(403);
    const longAgo = store.presignGet('usr_a', 'results/clip.mp4', 60, clock.now() - 3600_000);
    expect((await fetch(longAgo)).status).toBe(403);
  });

  it('MIMIC_MEDIA_URLS=presigned: media URLs are the bucket\'s, except objects a maker makes on demand', async () => {
    const media = createMediaAccess({ store, publicUrl: 'http://mimic.test', urlKey, ttlSeconds: 600, scheme: 's3', clock, urls: 'presigned' });
    media.whenMissing((_o, key) => key.endsWith('/talking-preview.mp4'), async () => {});
    const url = media.signedUrl('usr_a', 'results/clip.mp4');
    expect(url).toMatch(/X-Amz-Expires=600&/);
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(video)).toBe(true);
    expect(media.signedUrl('usr_a', 'presenters/p/talking-preview.mp4')).toMatch(/^http:\/\/mimic\.test\/media\/usr_a\/presenters\/p\/talking-preview\.mp4\?expires=/);
  });

  it('MIMIC_MEDIA_URLS=signed: GET /media streams from the bucket, with Range, If-Range and HEAD', async () => {
    const app = mountRoutes(new Hono<AppEnv>(), mediaRoutes({ store, urlKey, clock })).onError(errorHandler(silentLogger));
    const path = signMediaUrl({ publicUrl: 'http://mimic.test', key: urlKey, owner: 'usr_a', objectKey: 'results/clip.mp4', ttlSeconds: 60, now: clock.now() }).replace('http://mimic.test', '');
    const whole = await app.request(path);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('content-length')).toBe('1000');
    expect(Buffer.from(await whole.arrayBuffer()).equals(video)).toBe(true);
    const etag = whole.headers.get('etag')!;

    const part = await app.request(path, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/1000');
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(100, 200))).toBe(true);
    const tail = await app.request(path, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(video.subarray(990))).toBe(true);
    expect((await app.request(path, { headers: { range: 'bytes=5000-' } })).status).toBe(416);
    expect((await app.request(path, { headers: { range: 'bytes=0-9', 'if-range': etag } })).status).toBe(206);
    expect((await app.request(path, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } })).status).toBe(200);
    const head = await app.request(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('1000');

    const missing = signMediaUrl({ publicUrl: 'http://mimic.test', key: urlKey, owner: 'usr_a', objectKey: 'results/none.mp4', ttlSeconds: 60, now: clock.now() }).replace('http://mimic.test', '');
    expect((await app.request(missing)).status).toBe(404);
  });
});
