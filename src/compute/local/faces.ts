/**
 * Face detection and the 468-point mesh with @vladmandic/human's wasm build. Models and wasm
 * binaries load from node_modules on disk: nothing is fetched from the network.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import type { DetectedFace, FaceRequest } from '../interface.ts';
import type { Point3 } from './rig.ts';
import type { RgbImage } from './warp.ts';

const require = createRequire(import.meta.url);

/** The parts of human's API this backend uses. */
interface HumanFace {
  box: [number, number, number, number];
  boxScore: number;
  faceScore: number;
  score: number;
  mesh: Point3[];
  rotation?: { angle: { yaw: number; pitch: number; roll: number } } | null;
}
interface HumanTensor { dispose(): void }
interface HumanOutput extends HumanTensor { data(): Promise<Int32Array | Float32Array> }
interface Human {
  load(): Promise<void>;
  warmup(): Promise<unknown>;
  detect(input: HumanTensor, config?: object): Promise<{ face: HumanFace[] }>;
  /** The person's matte ([h, w, 1], 0..255) with `segmentation.mode: 'alpha'`; the model loads on the first call. */
  segmentation(input: HumanTensor, config?: object): Promise<HumanOutput | null>;
  tf: { tensor3d(data: Int32Array, shape: [number, number, number], dtype: 'int32'): HumanTensor };
}

export interface SourceFace {
  face: DetectedFace;
  mesh: Point3[];
  /** Degrees: [yaw, pitch, roll]. */
  pose: [number, number, number];
}

// human's exports map blocks subpath imports: resolve its folder from the main entry.
const humanDir = dirname(dirname(require.resolve('@vladmandic/human')));
const wasmDistDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));

/** human fetches models by URL; Node's fetch cannot read file:// URLs, so serve those from disk. */
function allowFileFetch(): void {
  const original = globalThis.fetch;
  if ((original as { fileAware?: boolean }).fileAware) return;
  const patched = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) return new Response(await readFile(fileURLToPath(url)), { status: 200 });
    return original(input, init);
  };
  globalThis.fetch = Object.assign(patched, { fileAware: true }) as typeof fetch;
}

export function humanConfig(maxDetected: number): object {
  return {
    backend: 'wasm',
    wasmPath: wasmDistDir + '/',
    modelBasePath: pathToFileURL(join(humanDir, 'models')).href + '/',
    debug: false,
    async: true,
    warmup: 'none',
    cacheSensitivity: 0,
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected, minConfidence: 0.35, return: false },
      mesh: { enabled: true },
      iris: { enabled: true },
      attention: { enabled: false },
      emotion: { enabled: false },
      description: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    filter: { enabled: false },
  };
}

let loading: Promise<Human> | undefined;

/** Loads human and its models once per process. */
export function loadHuman(): Promise<Human> {
  loading ??= (async () => {
    allowFileFetch();
    const mod = require(join(humanDir, 'dist', 'human.node-wasm.js')) as { Human: new (c: object) => Human };
    const human = new mod.Human(humanConfig(10));
    await human.load();
    return human;
  })();
  return loading;
}

/** Loads the models and runs one search on a small blank picture, so the first real search does not pay for compiling its kernels. */
export async function warmFaces(): Promise<void> {
  const human = await loadHuman();
  await detectRaw(human, { width: 64, height: 64, data: new Uint8Array(64 * 64 * 3).fill(128) });
}

export const toTensor = (human: Human, img: RgbImage): HumanTensor =>
  human.tf.tensor3d(Int32Array.from(img.data), [img.height, img.width, 3], 'int32');

/** Raw human faces of `img`. */
export async function detectRaw(human: Human, img: RgbImage, config?: object): Promise<HumanFace[]> {
  const t = toTensor(human, img);
  try {
    return (await human.detect(t, config)).face;
  } finally {
    t.dispose();
  }
}

const deg = (r: number | undefined) => ((r ?? 0) * 180) / Math.PI;

export function posesOf(f: HumanFace): [number, number, number] {
  const a = f.rotation?.angle;
  return [deg(a?.yaw), deg(a?.pitch), deg(a?.roll)];
}

function overlapOf(left: number, top: number, size: number, w: number, h: number): DetectedFace['overlap'] {
  const ix = Math.max(0, Math.min(left + size, w) - Math.max(left, 0));
  const iy = Math.max(0, Math.min(top + size, h) - Math.max(top, 0));
  const inside = (ix * iy) / (size * size);
  return inside >= 0.999 ? 'no' : inside >= 0.5 ? 'partial' : 'yes';
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The picture on a black square, at its top-left corner (so boxes keep their coordinates).
 * On a wide or tall frame human's detector returns stretched boxes and its descriptors lose
 * their identity (a 16:9 frame of a face scored 0.41 against the same face in a square one;
 * padded, 1.00: docs/face-identity.md).
 */
export function squared(img: RgbImage): RgbImage {
  if (img.width === img.height) return img;
  const side = Math.max(img.width, img.height);
  const data = new Uint8Array(side * side * 3);
  const row = img.width * 3;
  for (let y = 0; y < img.height; y++) data.set(img.data.subarray(y * row, (y + 1) * row), y * side * 3);
  return { width: side, height: side, data };
}

const DETECT_MAX_SIDE = 1920;

export async function downscale(img: RgbImage, scale: number): Promise<RgbImage> {
  const width = Math.max(1, Math.round(img.width * scale)), height = Math.max(1, Math.round(img.height * scale));
  const data = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length), {
    raw: { width: img.width, height: img.height, channels: 3 },
  }).resize(width, height, { fit: 'fill' }).raw().toBuffer();
  return { width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** All faces of `img`, largest first, with their meshes. */
export async function detectFaces(img: RgbImage): Promise<SourceFace[]> {
  const human = await loadHuman();
  // Big pictures are searched at a smaller size (the detector works at 256 px anyway).
  const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(img.width, img.height));
  const input = squared(scale < 1 ? await downscale(img, scale) : img);
  const raw = (await detectRaw(human, input, humanConfig(10))).filter((f) => f.mesh.length >= 468);
  raw.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
  return raw.map((f, i) => {
    const [x, y, w, h] = f.box.map((v) => v / scale) as [number, number, number, number];
    const size = Math.round(Math.max(w, h));
    const left = Math.round(x + w / 2 - size / 2), top = Math.round(y + h / 2 - size / 2);
    return {
      face: {
        face_id: i,
        detection: [Math.round(x), Math.round(y), Math.round(x + w), Math.round(y + h)],
        top_left: [left, top],
        size,
        detect_confidence: round2(f.boxScore),
        mask_confidence: round2(f.faceScore),
        overlap: overlapOf(left, top, size, img.width, img.height),
      },
      mesh: f.mesh.map((p) => [p[0] / scale, p[1] / scale, p[2] / scale] as Point3),
      pose: posesOf(f).map(round2) as [number, number, number],
    };
  });
}

/**
 * The face a request asks for: the detected face whose square overlaps `want` most (by
 * intersection over union); without `want`, the largest. Undefined when there is no face,
 * or when `want` overlaps none (another face is never animated in its place).
 */
export function chooseFace(faces: SourceFace[], want?: FaceRequest): SourceFace | undefined {
  if (!want) return faces[0];
  const iou = (f: DetectedFace) => {
    const [l, t] = f.top_left;
    const ix = Math.max(0, Math.min(l + f.size, want.top_left[0] + want.size) - Math.max(l, want.top_left[0]));
    const iy = Math.max(0, Math.min(t + f.size, want.top_left[1] + want.size) - Math.max(t, want.top_left[1]));
    const inter = ix * iy;
    return inter / (f.size ** 2 + want.size ** 2 - inter);
  };
  let best: SourceFace | undefined, bestIou = 0;
  for (const f of faces) {
    const v = iou(f.face);
    if (v > bestIou) { best = f; bestIou = v; }
  }
  return best;
}
