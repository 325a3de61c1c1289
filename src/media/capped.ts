import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ApiError } from '../errors.ts';

/**
 * Writes a request body to `path` as it arrives, never holding it in memory, and stops with
 * `tooLarge()` past `maxBytes`. Any failure removes the partial file; a file-system fault (a
 * full disk) is thrown as it is (ours: a 500), anything else is the upload breaking off (400).
 * Answers the bytes written.
 */
export async function writeCapped(body: ReadableStream<Uint8Array> | null, path: string, maxBytes: number, tooLarge: () => Error): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? tooLarge() : null, chunk);
    },
  });
  try {
    const source = body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([]);
    await pipeline(source, counter, createWriteStream(path));
    return bytes;
  } catch (err) {
    await rm(path, { force: true });
    if (err instanceof ApiError || (err as NodeJS.ErrnoException).syscall) throw err;
    throw new ApiError('BadRequestError', 'The upload was interrupted');
  }
}
