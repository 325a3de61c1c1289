import { createWriteStream, mkdtempSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomFillSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3MediaStore } from '../../src/media/s3-store.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

/** Uploads and downloads stream: moving 200 MB through the S3 store never holds anything near 200 MB in memory. */
const swift = swiftOrSkip('test/media/s3-memory.test.ts');
const MiB = 1024 * 1024;
const SIZE = 200 * MiB;
const dir = mkdtempSync(join(tmpdir(), 'mimic-s3-memory-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Heap and Buffer memory (Buffers live outside the JS heap), sampled while `work` runs; answers the peak above the start. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  globalThis.gc?.();
  const start = used();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, used())), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, used()) - start;
}

/** A file of `size` random bytes, written a MiB at a time. */
async function bigFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  async function* chunks() {
    for (let done = 0; done < size; done += MiB) {
      const chunk = randomFillSync(Buffer.alloc(MiB));
      hash.update(chunk);
      yield chunk;
    }
  }
  await pipeline(chunks, createWriteStream(path));
  return hash.digest('hex');
}

describe.skipIf(!swift)('memory of large objects on S3', () => {
  it('a 200 MB upload from a file and its download each grow heap and buffers by far less than 200 MB', { timeout: 300_000 }, async () => {
    const store = createS3MediaStore((await freshBucket(swift!)).settings, { cacheDir: join(dir, 'cache') });
    const file = join(dir, 'big.bin');
    const digest = await bigFile(file, SIZE);
    expect(statSync(file).size).toBe(SIZE);

    const up = await peakGrowth(async () => {
      await store.put('usr_a', 'videos/big.bin', file, 'application/octet-stream');
    });
    expect((await store.stat('usr_a', 'videos/big.bin'))!.size).toBe(SIZE);

    const hash = createHash('sha256');
    const down = await peakGrowth(async () => {
      const body = await store.read('usr_a', 'videos/big.bin');
      await pipeline(body!, new Writable({ write: (chunk: Buffer, _enc, done) => (hash.update(chunk), done()) }));
    });
    expect(hash.digest('hex')).toBe(digest);

    const local = await peakGrowth(async () => {
      const copy = await store.localFile('usr_a', 'videos/big.bin', join(dir, 'work'));
      expect(statSync(copy!).size).toBe(SIZE);
    });
    console.log(`memory growth (MiB): upload ${(up / MiB).toFixed(1)}, download ${(down / MiB).toFixed(1)}, download to a file ${(local / MiB).toFixed(1)}`);
    // Parts of 8 MiB, two in flight, the client's buffers and garbage not yet collected: tens of MiB, never the 200 of the object.
    for (const growth of [up, down, local]) expect(growth).toBeLessThan(SIZE / 2);
  });
});
