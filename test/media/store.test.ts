import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalMediaStore } from '../../src/media/store.ts';
import { keyProblem, parseStorageUrl } from '../../src/media/keys.ts';
import { createMediaAccess } from '../../src/media/access.ts';
import { ApiError } from '../../src/errors.ts';

const newStore = () => createLocalMediaStore(mkdtempSync(join(tmpdir(), 'mimic-media-')));

describe('object keys', () => {
  it.each([
    '../x',
    'a/../../b',
    '..',
    '.',
    'a/./b',
    '/etc/passwd',
    'a\\..\\b',
    'a\0b',
    'a//b',
    'a/',
    '.hidden',
    'a/.b.meta.json',
    '',
    'a'.repeat(1025),
    'a b',
    '%2e%2e/x',
    'a/\u00e9',
    '-flag',
    Array(17).fill('a').join('/'),
  ])('refuses %j', (key) => {
    expect(keyProblem(key)).not.toBeNull();
  });

  it.each(['a', 'bucket/key.png', 'animations/anm_1/result.mp4', 'A_b-c.d~e+f=g@h,i', '_x/y'])('accepts %j', (key) => {
    expect(keyProblem(key)).toBeNull();
  });

  it('a refused key never reaches the disk', async () => {
    const store = newStore();
    await expect(store.put('usr_a', '../usr_b/x', Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(ApiError);
    expect(() => store.path('usr_a', '../../etc/passwd')).toThrow(ApiError);
    expect(() => store.path('../x', 'a')).toThrow(ApiError);
    expect(store.find('usr_a', '../usr_b/x')).toBeNull();
    expect(existsSync(join(store.root, 'usr_b'))).toBe(false);
  });
});

describe('storage URLs', () => {
  it('maps <scheme>://bucket/key to the key bucket/key', () => {
    expect(parseStorageUrl('s3://bucket/dir/face.png', 's3')).toBe('bucket/dir/face.png');
    expect(parseStorageUrl('S3://bucket/face.png', 's3')).toBe('bucket/face.png');
    expect(parseStorageUrl('gs://bucket/face.png', 'gs')).toBe('bucket/face.png');
  });

  it.each(['s3://bucket', 's3://bucket/', 's3://bucket/../x', 's3://bucket/%2e%2e/x', 's3://bucket/a?x=1', 's3://u@bucket/a', 's3:///a', 'https://bucket/a', 's3://bucket/a%2F..%2F..%2Fb', 's3://bucket/%zz'])(
    'refuses %s',
    (url) => {
      expect(parseStorageUrl(url, 's3')).toBeNull();
    },
  );

  it('the same URL of two owners names two objects', async () => {
    const store = newStore();
    const key = parseStorageUrl('s3://b/k.png', 's3')!;
    await store.put('usr_a', key, Buffer.from('A'), 'image/png');
    await store.put('usr_b', key, Buffer.from('B'), 'image/png');
    expect(readFileSync(store.find('usr_a', key)!, 'utf8')).toBe('A');
    expect(readFileSync(store.find('usr_b', key)!, 'utf8')).toBe('B');
    expect(store.find('usr_c', key)).toBeNull();
  });
});

describe('local media store', () => {
  it('puts bytes and files, remembers content types, removes', async () => {
    const store = newStore();
    const obj = await store.put('usr_a', 'x/clip', Buffer.from('hello'), 'video/mp4');
    expect(obj).toMatchObject({ size: 5, contentType: 'video/mp4', path: join(store.root, 'usr_a', 'x', 'clip') });

    const src = join(store.root, 'incoming.png');
    writeFileSync(src, 'png!');
    await store.put('usr_a', 'copy.png', src, 'image/png');
    expect(existsSync(src)).toBe(true);
    await store.put('usr_a', 'moved.png', src, 'image/png', { move: true });
    expect(existsSync(src)).toBe(false);
    expect(await store.stat('usr_a', 'moved.png')).toMatchObject({ size: 4, contentType: 'image/png' });

    // Without a sidecar the extension decides.
    writeFileSync(join(store.root, 'usr_a', 'raw.webm'), 'w');
    expect((await store.stat('usr_a', 'raw.webm'))?.contentType).toBe('video/webm');

    expect(await store.remove('usr_a', 'x/clip')).toBe(true);
    expect(await store.remove('usr_a', 'x/clip')).toBe(false);
    expect(await store.stat('usr_a', 'x/clip')).toBeNull();
  });

  it('removePrefix removes a folder and nothing else', async () => {
    const store = newStore();
    await store.put('usr_a', 'animations/anm_1/result.mp4', Buffer.from('1'), 'video/mp4');
    await store.put('usr_a', 'animations/anm_1/source.png', Buffer.from('1'), 'image/png');
    await store.put('usr_a', 'animations/anm_12/result.mp4', Buffer.from('2'), 'video/mp4');
    await store.removePrefix('usr_a', 'animations/anm_1/');
    expect(store.find('usr_a', 'animations/anm_1/result.mp4')).toBeNull();
    expect(store.find('usr_a', 'animations/anm_12/result.mp4')).not.toBeNull();
    await expect(store.removePrefix('usr_a', '../')).rejects.toBeInstanceOf(ApiError);
  });

  it('createMediaAccess: signed URLs, storage URLs and files', async () => {
    const store = newStore();
    const media = createMediaAccess({ store, publicUrl: 'https://api.example/', urlKey: Buffer.alloc(32, 1), ttlSeconds: 60, scheme: 's3', clock: { now: () => 1_000_000 } });
    expect(media.keyOfStorageUrl('s3://b/k.png')).toBe('b/k.png');
    expect(media.signedUrl('usr_a', 'b/k.png')).toMatch(/^https:\/\/api\.example\/media\/usr_a\/b\/k\.png\?expires=1060&signature=[\w-]{43}$/);
    await media.putBytes('usr_a', 'b/k.png', Buffer.from('x'), 'image/png');
    expect(await media.localFile('usr_a', 'b/k.png')).toBe(store.path('usr_a', 'b/k.png'));
    expect(await media.exists('usr_a', 'b/k.png')).toBe(true);
    expect(await media.localFile('usr_a', '')).toBeNull();
  });
});
