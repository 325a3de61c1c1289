/**
 * What a live stream animates: the picture decoded, the face found, the rig built, and (for a
 * background) the person's matte. Prepared once per (picture content, face, stitch) and kept,
 * so a second stream of the same presenter opens without searching faces again.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { RenderError, type RenderErrorKind } from '../../../errors.ts';
import type { FaceRequest } from '../../interface.ts';
import { detectFaces, downscale, warmFaces } from '../faces.ts';
import { decodeImage, evenSize } from '../image.ts';
import { cropCanvas, requestedFace } from '../render.ts';
import { buildRig, type Rig } from '../rig.ts';
import { segmentPerson } from '../matte.ts';
import type { RgbImage } from '../warp.ts';

/** A stitched stream is the whole picture, its longer side at most this (a live frame must render in 40 ms). */
export const STREAM_MAX_SIDE = 1280;

export interface PreparedFace {
  image: RgbImage;
  rig: Rig;
  /** The person's alpha over `image`, made on first use with a background. */
  matte?: Promise<Uint8Array>;
}

/** Prepared faces kept per key; the oldest go beyond this many. */
const CACHE_SIZE = 16;
const cache = new Map<string, Promise<PreparedFace>>();

async function prepareFace(path: string, face: FaceRequest | undefined, stitch: boolean): Promise<PreparedFace> {
  const source = await decodeImage(path);
  if (stitch) {
    const scale = Math.min(1, STREAM_MAX_SIDE / Math.max(source.width, source.height));
    const whole = evenSize(scale < 1 ? await downscale(source, scale) : source);
    // The face request is in the picture's own pixels; faces are searched on the frame as streamed.
    const want = face && scale < 1 ? { top_left: [face.top_left[0] * scale, face.top_left[1] * scale] as [number, number], size: face.size * scale } : face;
    const chosen = requestedFace(await detectFaces(whole), want);
    return { image: whole, rig: buildRig([chosen.mesh], whole.width, whole.height, whole) };
  }
  const chosen = requestedFace(await detectFaces(source), face);
  const canvas = await cropCanvas(source, chosen);
  return { image: canvas.image, rig: buildRig(canvas.meshes, canvas.image.width, canvas.image.height, canvas.image) };
}

/** The prepared face of a picture file (cached by its content), or a RenderError that says why there is none. */
export async function preparedFace(path: string, face: FaceRequest | undefined, stitch: boolean): Promise<PreparedFace> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    throw new RenderError('SourceError', 'the source image could not be read');
  }
  const key = `${createHash('sha256').update(buf).digest('hex')}:${stitch ? 1 : 0}:${face ? `${face.top_left.join(',')},${face.size}` : ''}`;
  let p = cache.get(key);
  if (!p) {
    p = prepareFace(path, face, stitch);
    cache.set(key, p);
    // A failure is not kept: the next open tries again (and fails the same way, cheaply enough).
    p.catch(() => cache.delete(key));
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  } else {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, p);
  }
  return p;
}

/** The person's matte over a prepared face (computed once, then kept with it). */
export function matteOf(f: PreparedFace): Promise<Uint8Array> {
  f.matte ??= segmentPerson(f.image);
  return f.matte;
}

/** What the thread is asked: a picture prepared, or only its models loaded (`FacePreparer.warm`). */
type PrepareAsk =
  | {
      warm?: undefined;
      path: string;
      face?: FaceRequest;
      stitch: boolean;
      /** Also the person's matte (a stream with a background). */
      matte: boolean;
    }
  | { warm: true };

export type PrepareRequest = PrepareAsk & { id: number };

export type PrepareReply =
  | { id: number; ok: true; image: RgbImage; rig: Rig; matte?: Uint8Array }
  | { id: number; ok: true; warmed: true }
  | { id: number; ok: false; message: string; renderKind?: RenderErrorKind };

export interface FacePreparer {
  prepare(path: string, face: FaceRequest | undefined, stitch: boolean, matte: boolean): Promise<{ face: PreparedFace; matte?: Uint8Array }>;
  /** Starts what the first preparation would (the thread, the face models). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** Prepares faces on this thread (a caller with nothing else to keep in time). */
export const sameThreadPreparer: FacePreparer = {
  async prepare(path, face, stitch, matte) {
    const f = await preparedFace(path, face, stitch);
    return { face: f, ...(matte ? { matte: await matteOf(f) } : {}) };
  },
  warm: warmFaces,
  async close() {},
};

/** The preparation thread; from TypeScript sources (tsx, vitest) tsx's loader is registered in it first (threads do not inherit it). */
function startThread(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./prepare-thread.js', import.meta.url));
  // Node 20 does not carry module hooks into threads: tsx's require hook compiles the sources there.
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs');
  const entry = fileURLToPath(new URL('./prepare-thread.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry)});`, { eval: true });
}

/**
 * Prepares faces on a worker thread (started on first use, kept, unref'd while idle), so the
 * face search never stalls the frames this thread renders. The cache lives in the thread.
 */
export function threadPreparer(): FacePreparer {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: PrepareReply) => void; reject: (e: Error) => void }>();
  const start = (): Worker => {
    const w = startThread();
    w.on('message', (r: PrepareReply) => {
      const p = pending.get(r.id);
      pending.delete(r.id);
      if (pending.size === 0) w.unref();
      p?.resolve(r);
    });
    const fail = (err: Error) => {
      if (worker === w) worker = undefined;
      for (const [id, p] of pending) { pending.delete(id); p.reject(err); }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the face preparation thread exited (code ${code})`)));
    return w;
  };
  const ask = (req: PrepareAsk): Promise<PrepareReply> => {
    const w = (worker ??= start());
    const id = nextId++;
    return new Promise<PrepareReply>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ id, ...req } satisfies PrepareRequest);
    });
  };
  const failure = (reply: Extract<PrepareReply, { ok: false }>) => (reply.renderKind ? new RenderError(reply.renderKind, reply.message) : new Error(reply.message));
  return {
    async prepare(path, face, stitch, matte) {
      const reply = await ask({ path, ...(face ? { face } : {}), stitch, matte });
      if (!reply.ok) throw failure(reply);
      if ('warmed' in reply) throw new Error('the face preparation thread answered a preparation with a warm-up');
      return { face: { image: reply.image, rig: reply.rig }, ...(reply.matte ? { matte: reply.matte } : {}) };
    },
    async warm() {
      const reply = await ask({ warm: true });
      if (!reply.ok) throw failure(reply);
    },
    async close() {
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}
