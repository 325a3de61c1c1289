/**
 * The face model's thread: @vladmandic/human (wasm) loads here once, on the first frame, and
 * answers one frame at a time with every face it finds, its head pose, mouth opening and
 * identity descriptor. The thread that created it only decodes frames and waits.
 */
import { parentPort } from 'node:worker_threads';
import { detectRaw, downscale, humanConfig, loadHuman, posesOf, squared } from '../compute/local/faces.ts';
import type { RgbImage } from '../compute/local/warp.ts';
import type { FaceObservation } from './faces.ts';

export interface FrameRequest { id: number; width: number; height: number; rgb: Uint8Array }
export type FrameAnswer = { id: number; faces: FaceObservation[] } | { id: number; error: string };

/** Faces shorter than this share of the frame height are ignored (someone in the background, a picture on the wall). */
const MIN_FACE_HEIGHT = 0.05;
/** The detector works at 256 px; larger frames are searched at this size at most (boxes are scaled back). */
const MAX_SIDE = 1280;

const CONFIG = (() => {
  const base = humanConfig(10) as { face: Record<string, unknown> };
  return { ...base, face: { ...base.face, description: { enabled: true } } };
})();

type Point = number[];
const dist = (a: Point | undefined, b: Point | undefined) => (a && b ? Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!) : 0);

/** Inner-lip gap (mesh points 13 and 14) over face height (forehead 10 to chin 152). */
function mouthOpening(mesh: Point[]): number {
  const height = dist(mesh[10], mesh[152]);
  return height > 0 ? dist(mesh[13], mesh[14]) / height : 0;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

async function analyse(req: FrameRequest): Promise<FaceObservation[]> {
  const human = await loadHuman();
  const scale = Math.min(1, MAX_SIDE / Math.max(req.width, req.height));
  const full = { width: req.width, height: req.height, data: req.rgb };
  const img = squared(scale < 1 ? await downscale(full, scale) : full);
  const raw = await detectRaw(human, img, CONFIG);
  const faces = raw
    .map((f) => {
      const [yaw, pitch, roll] = posesOf(f);
      const descriptor = (f as { embedding?: number[] }).embedding ?? [];
      return {
        box: f.box.map((v) => Math.round(v / scale)) as [number, number, number, number],
        score: round(f.score),
        yaw: round(yaw, 1), pitch: round(pitch, 1), roll: round(roll, 1),
        mouthOpen: f.mesh.length >= 468 ? round(mouthOpening(f.mesh)) : 0,
        descriptor: Array.from(descriptor),
      };
    })
    .filter((f) => f.box[3] >= MIN_FACE_HEIGHT * req.height);
  faces.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
  return faces;
}

parentPort?.on('message', (req: FrameRequest) => {
  analyse(req).then(
    (faces) => parentPort!.postMessage({ id: req.id, faces } satisfies FrameAnswer),
    (err: unknown) => parentPort!.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies FrameAnswer),
  );
});
