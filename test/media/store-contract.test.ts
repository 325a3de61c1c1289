import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalMediaStore, type MediaStore } from '../../src/media/store.ts';
import { createS3MediaStore } from '../../src/media/s3-store.ts';
import { copyAll } from '../../src/media/copy.ts';
import { ApiError } from '../../src/errors.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

/** The media-store contract: the same behaviour from the local folder and from an S3 bucket (Swift). */
const swift = swiftOrSkip('test/media/store-contract.test.ts');
const temp = () => mkdtempSync(join(tmpdir(), 'mimic-media-contract-'));
const dirs: string[] = [];
const tempDir = () => {
  const d = temp();
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const implementations: [string, (() => Promise<MediaStore>) | null][] = [
  ['local folder', async () => createLocalMediaStore(tempDir())],
  ['S3 bucket (Swift)', swift ? async () => createS3MediaStore((await freshBucket(swift, { MIMIC_S3_PREFIX: 'tenant/media' })).settings, { cacheDir: tempDir() }) : null],
];

const all = async (it: AsyncIterable<{ owner: string; key: string; size: number }>) => {
  const out = [];
  for await (const o of it) out.push(`${o.owner}/${o.key}:${o.size}`);
  return out.sort();
};

for (const [name, open] of implementations) {
  describe.skipIf(!open)(`media store contract: ${name}`, () => {
    it('puts bytes, files and streams; stats, reads and lists them', async () => {
      const store = await open!();
      const bytes = await store.put('usr_a', 'x/clip.mp4', Buffer.from('hello world'), 'video/mp4');
      expect(bytes).toMatchObject({ size: 11, contentType: 'video/mp4' });
      expect(bytes.etag).toMatch(/^".+"$/);
      const file = join(tempDir(), 'in.png');
      writeFileSync(file, 'png bytes');
      await store.put('usr_a', 'b/copied.png', file, 'image/png');
      expect(existsSync(file)).toBe(true);
      await store.put('usr_a', 'b/moved.png', file, 'image/png', { move: true });
      expect(existsSync(file)).toBe(false);
      await store.put('usr_b', 'streamed.txt', Readable.from([Buffer.from('one '), Buffer.from('two')]), 'text/plain');

      expect(await store.stat('usr_a', 'b/moved.png')).toMatchObject({ size: 9, contentType: 'image/png' });
      expect(await store.stat('usr_a', 'nothing')).toBeNull();
      expect(await store.exists('usr_a', 'x/clip.mp4')).toBe(true);
      expect(await store.exists('usr_b', 'x/clip.mp4')).toBe(false);
      expect(await text((await store.read('usr_b', 'streamed.txt'))!)).toBe('one two');
      expect(await text((await store.read('usr_a', 'x/clip.mp4', { start: 6, end: 10 }))!)).toBe('world');
      expect(await text((await store.read('usr_a', 'x/clip.mp4', { start: 0, end: 0 }))!)).toBe('h');
      expect(await store.read('usr_a', 'missing')).toBeNull();

      expect(await all(store.list('usr_a'))).toEqual(['usr_a/b/copied.png:9', 'usr_a/b/moved.png:9', 'usr_a/x/clip.mp4:11']);
      expect(await all(store.list())).toEqual(['usr_a/b/copied.png:9', 'usr_a/b/moved.png:9', 'usr_a/x/clip.mp4:11', 'usr_b/streamed.txt:7']);
    });

    it('replaces an object whole, and answers a local file of it (in a work folder, or not)', async () => {
      const store = await open!();
      await store.put('usr_a', 'r/v.txt', Buffer.from('first'), 'text/plain');
      const local = await store.localFile('usr_a', 'r/v.txt');
      expect(readFileSync(local!, 'utf8')).toBe('first');
      await store.put('usr_a', 'r/v.txt', Buffer.from('second!'), 'text/plain');
      expect((await store.stat('usr_a', 'r/v.txt'))!.size).toBe(7);
      expect(readFileSync((await store.localFile('usr_a', 'r/v.txt'))!, 'utf8')).toBe('second!');
      const work = tempDir();
      const inWork = await store.localFile('usr_a', 'r/v.txt', work);
      expect(readFileSync(inWork!, 'utf8')).toBe('second!');
      if (store.kind === 's3') expect(inWork!.startsWith(work)).toBe(true);
      expect(await store.localFile('usr_a', 'r/none.txt')).toBeNull();
      expect(await store.localFile('usr_a', 'r/none.txt', work)).toBeNull();
    });

    it('removes an object, a folder prefix (whole segments only) and an owner', async () => {
      const store = await open!();
      for (const key of ['animations/anm_1/result.mp4', 'animations/anm_1/source.png', 'animations/anm_12/result.mp4', 'other.txt']) {
        await store.put('usr_a', key, Buffer.from('1'), 'application/octet-stream');
      }
      await store.put('usr_b', 'animations/anm_1/result.mp4', Buffer.from('b'), 'video/mp4');
      expect(await store.remove('usr_a', 'other.txt')).toBe(true);
      expect(await store.remove('usr_a', 'other.txt')).toBe(false);
      await store.removePrefix('usr_a', 'animations/anm_1/');
      expect(await store.exists('usr_a', 'animations/anm_1/result.mp4')).toBe(false);
      expect(await store.exists('usr_a', 'animations/anm_1/source.png')).toBe(false);
      expect(await store.exists('usr_a', 'animations/anm_12/result.mp4')).toBe(true);
      expect(await store.exists('usr_b', 'animations/anm_1/result.mp4')).toBe(true);
      await store.removeOwner('usr_a');
      expect(await all(store.list('usr_a'))).toEqual([]);
      expect(await all(store.list())).toEqual(['usr_b/animations/anm_1/result.mp4:1']);
    });

    it('refuses invalid owners and keys as a ValidationError, and finds nothing under them', async () => {
      const store = await open!();
      for (const [owner, key] of [['usr_a', '../usr_b/x'], ['usr_a', '.hidden'], ['../x', 'a'], ['usr_a', 'a//b'], ['usr_a', '']]) {
        await expect(store.put(owner!, key!, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(ApiError);
        expect(await store.stat(owner!, key!)).toBeNull();
        expect(await store.exists(owner!, key!)).toBe(false);
        expect(await store.read(owner!, key!)).toBeNull();
      }
      await expect(store.remove('usr_a', '../x')).rejects.toBeInstanceOf(ApiError);
      await expect(store.removePrefix('usr_a', '../')).rejects.toBeInstanceOf(ApiError);
      await expect(store.removeOwner('../usr_a')).rejects.toBeInstanceOf(ApiError);
    });
  });
}

describe.skipIf(!swift)('copyAll', () => {
  it('copies a local folder into a bucket, content types kept, and again copies nothing', async () => {
    const from = createLocalMediaStore(tempDir());
    const to = createS3MediaStore((await freshBucket(swift!)).settings, { cacheDir: tempDir() });
    await from.put('usr_a', 'a/one.png', Buffer.from('one'), 'image/png');
    await from.put('usr_b', 'b/two.json', Buffer.from('{"two":2}'), 'application/json');
    expect(await copyAll(from, to)).toEqual({ copied: 2, skipped: 0, bytes: 12 });
    expect(await to.stat('usr_b', 'b/two.json')).toMatchObject({ size: 9, contentType: 'application/json' });
    expect(await text((await to.read('usr_a', 'a/one.png'))!)).toBe('one');
    expect(await copyAll(from, to)).toEqual({ copied: 0, skipped: 2, bytes: 0 });
  });
});
