/**
 * Faces in sampled frames of a video: where each face is, how sure the detector is, the head
 * pose, how open the mouth is, and the identity descriptor. ffmpeg decodes each frame with an
 * input seek (`-ss t -i file -frames:v 1`): for 20 frames of a 5-minute video that reads about
 * 20 GOPs instead of decoding all 7,500 frames of one pass with an fps filter (measured in
 * docs/face-identity.md). The model (@vladmandic/human, wasm) runs in a worker thread, loaded
 * once on first use; analyses queue and run one at a time.
 */
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runFfmpeg } from '../media/ffmpeg.ts';
import { probeVideo, seekArgs } from './probe.ts';
import type { FrameAnswer, FrameRequest } from './faces-worker.ts';

export interface FaceObservation {
  /** x, y, w, h in frame pixels. */
  box: [number, number, number, number];
  score: number;
  /** Degrees. */
  yaw: number;
  pitch: number;
  roll: number;
  /** Inner-lip gap over face height; about 0 when closed. */
  mouthOpen: number;
  descriptor: number[];
}

export interface FrameFaces { timeSec: number; width: number; height: number; faces: FaceObservation[] }

export interface FaceAnalyzer {
  /**
   * `count` frames spread evenly over [fromSec, toSec) (default: the whole video; each frame
   * is the middle of its share), each with every face found, largest first (score above the
   * library's own minimum, faces under 5% of the frame height ignored). A time that yields
   * no picture (past the end) is left out, so fewer than `count` frames can come back.
   * Without `toSec` the file is probed first (FootageError when it is not a decodable video).
   */
  sample(path: string, opts: { count: number; fromSec?: number; toSec?: number; signal?: AbortSignal }): Promise<FrameFaces[]>;
  close(): Promise<void>;
}

const abortError = (): DOMException => new DOMException('the footage analysis was aborted', 'AbortError');

/** One decoded frame: a PPM (P6) image is self-describing, so a rotated phone video comes out with its true size. */
export function parsePpm(buf: Buffer): { width: number; height: number; rgb: Uint8Array } | undefined {
  const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (!m) return undefined;
  const width = Number(m[1]), height = Number(m[2]);
  const start = m[0].length;
  if (buf.length < start + width * height * 3) return undefined;
  return { width, height, rgb: new Uint8Array(buf.buffer, buf.byteOffset + start, width * height * 3) };
}

async function decodeFrame(path: string, atSec: number, signal?: AbortSignal) {
  const r = await runFfmpeg(['-v', 'error', ...seekArgs(path, atSec), '-map', '0:v:0', '-frames:v', '1', '-pix_fmt', 'rgb24', '-c:v', 'ppm', '-f', 'image2pipe', 'pipe:1'], { signal, timeoutMs: 120_000 });
  return r.code === 0 ? parsePpm(r.stdout) : undefined;
}

/**
 * The worker module beside this one. From TypeScript sources (tsx, vitest) a small bootstrap
 * registers tsx's loader in the thread first (Node 20 does not apply `--import` hooks to a
 * worker's own entry module).
 */
function startWorker(): Worker {
  const fromTs = import.meta.url.endsWith('.ts');
  const url = new URL(`./faces-worker.${fromTs ? 'ts' : 'js'}`, import.meta.url);
  if (!fromTs) return new Worker(url);
  // tsx's ESM entry of `tsx/esm/api`, from its exports map (require.resolve would give the CommonJS one).
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(pkgPath), pkg.exports['./esm/api']!.import.default)).href;
  return new Worker(`import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true });
}

export function createFaceAnalyzer(): FaceAnalyzer {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve(faces: FrameAnswer): void; reject(e: Error): void }>();
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  const failAll = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };

  const ensureWorker = (): Worker => {
    if (worker) return worker;
    const w = startWorker();
    w.on('message', (m: FrameAnswer) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      // An idle thread does not keep the process alive (a CLI command that forgot close() still exits).
      if (pending.size === 0) w.unref();
      p?.resolve(m);
    });
    w.on('error', (e) => { if (worker === w) worker = undefined; failAll(e); });
    w.on('exit', (code) => { if (worker === w) worker = undefined; failAll(new Error(`the face analysis thread exited (${code})`)); });
    worker = w;
    return w;
  };

  const analyse = (frame: { width: number; height: number; rgb: Uint8Array }): Promise<FrameAnswer> => {
    const w = ensureWorker();
    const id = nextId++;
    // A copy of its own, so the frame's memory moves to the worker instead of being cloned.
    const rgb = new Uint8Array(frame.rgb);
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ id, width: frame.width, height: frame.height, rgb } satisfies FrameRequest, [rgb.buffer]);
    });
  };

  async function run(path: string, opts: { count: number; fromSec?: number; toSec?: number; signal?: AbortSignal }): Promise<FrameFaces[]> {
    const { signal } = opts;
    if (!Number.isInteger(opts.count) || opts.count < 1) throw new RangeError('count must be a positive integer');
    const from = Math.max(0, opts.fromSec ?? 0);
    let to = opts.toSec;
    to ??= (await probeVideo(path, signal)).durationSec;
    const span = to - from;
    if (!(span > 0)) throw new RangeError(`the range [${from}, ${to}) is empty`);
    const frames: FrameFaces[] = [];
    for (let i = 0; i < opts.count; i++) {
      if (signal?.aborted) throw abortError();
      const timeSec = from + ((i + 0.5) * span) / opts.count;
      const frame = await decodeFrame(path, timeSec, signal);
      if (!frame) continue;
      const answer = await analyse(frame);
      if ('error' in answer) throw new Error(`face analysis failed: ${answer.error}`);
      frames.push({ timeSec: Math.round(timeSec * 1000) / 1000, width: frame.width, height: frame.height, faces: answer.faces });
    }
    if (signal?.aborted) throw abortError();
    return frames;
  }

  return {
    sample(path, opts) {
      if (closed) return Promise.reject(new Error('the face analyzer is closed'));
      const result = tail.then(() => run(path, opts));
      tail = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      failAll(new Error('the face analyzer was closed'));
      await w?.terminate();
    },
  };
}
