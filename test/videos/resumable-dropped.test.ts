/**
 * A resumable upload over a real socket that drops in the middle of its body: the server keeps
 * every byte that reached it, HEAD says how many, the client resumes from there, and the video
 * stored at the end is the file, byte for byte.
 */
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { consentVideo } from '../helpers/avatar-videos.ts';
import { storedFile } from '../media/stored-file.ts';

let live: LiveService;
beforeAll(async () => {
  live = await startLiveService({ env: { MIMIC_WORKER: 'false' } });
}, 60_000);
afterAll(() => live?.close());

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const tus = () => ({ authorization: `Basic ${live.key}`, 'tus-resumable': '1.0.0' });

async function offsetOf(location: string): Promise<number> {
  const res = await fetch(location, { method: 'HEAD', headers: tus() });
  expect(res.status).toBe(200);
  return Number(res.headers.get('upload-offset'));
}

/** Asks `check` again (a turn of the event loop between tries) until it holds; fails after `capMs`. */
async function until(what: string, check: () => Promise<boolean>, capMs = 30_000): Promise<void> {
  const deadline = performance.now() + capMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${capMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a resumable upload whose connection drops mid-body', () => {
  it('keeps what was sent, shows it by HEAD, resumes from there, and stores the same bytes', async () => {
    const bytes = readFileSync(await consentVideo({ text: 'Hello there, this is a short test video with some words in it.' }));
    const half = Math.floor(bytes.length / 2);
    const created = await fetch(`${live.base}/videos/uploads`, { method: 'POST', headers: { ...tus(), 'upload-length': String(bytes.length) } });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    const path = new URL(location).pathname;

    // A raw socket announces the whole file, sends half of it, and is destroyed.
    const socket: Socket = connect(Number(new URL(live.base).port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const answered: Buffer[] = [];
    socket.on('data', (d: Buffer) => answered.push(d));
    socket.on('error', () => undefined);
    socket.write(
      `PATCH ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${live.key}\r\nTus-Resumable: 1.0.0\r\n`
      + `Upload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: ${bytes.length}\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, half));
    // Written as it arrives: HEAD sees the half while the request is still open.
    await until('the first half on disk', async () => (await offsetOf(location)) === half);
    socket.destroy();
    expect(Buffer.concat(answered).length).toBe(0);
    expect(await offsetOf(location)).toBe(half);

    // Resume from the offset HEAD gave. Until the server has seen the drop, the old request
    // still holds the upload (409 "Another request is writing"), as a tus client retries.
    let resumed: Response | undefined;
    await until('the resume accepted', async () => {
      const res = await fetch(location, {
        method: 'PATCH',
        headers: { ...tus(), 'upload-offset': String(await offsetOf(location)), 'content-type': 'application/offset+octet-stream' },
        body: bytes.subarray(half),
      });
      if (res.status === 409) {
        expect(((await res.json()) as { description: string }).description).toMatch(/Another request is writing/);
        return false;
      }
      resumed = res;
      return true;
    });
    expect(resumed!.status, await resumed!.clone().text()).toBe(204);
    expect(resumed!.headers.get('upload-offset')).toBe(String(bytes.length));

    const done = (await (await fetch(location, { headers: tus() })).json()) as { status: string; video: { id: string; url: string; size: number } };
    expect(done).toMatchObject({ status: 'done', video: { size: bytes.length } });
    const stored = storedFile(live.running.services.mediaStore, live.userId, `videos/${done.video.id}.mp4`)!;
    expect(sha256(readFileSync(stored))).toBe(sha256(bytes));
    // The dropped request ended as an interruption, not as a fault of the server.
    expect(live.logs.filter((l) => /"level":"error"|unhandled/.test(l))).toEqual([]);
  }, 120_000);
});
