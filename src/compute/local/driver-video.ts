/**
 * Driver videos: decode, track the driver's face frame by frame with human (head pose, eye
 * openness, mouth opening, brows, smile from the mesh), and turn it into a motion track
 * relative to the driver's first tracked frame. Duration and fps follow the driver; its
 * sound is carried when the caller wants it.
 */
import { spawn } from 'node:child_process';
import { RenderError } from '../../errors.ts';
import { FFMPEG_PATH, probe, track } from '../../media/ffmpeg.ts';
import { detectRaw, loadHuman, humanConfig, posesOf } from './faces.ts';
import {
  CHEEK_L, CHEEK_R, CHIN, EYE_L, EYE_L_CORNERS, EYE_R, EYE_R_CORNERS, FOREHEAD, LOWER_LIP_INNER_MID,
  MOUTH_CORNER_OUTER, UPPER_LIP_INNER_MID,
} from './landmarks.ts';
import { neutralFrame, type MotionFrame, type MotionTrack } from './motion.ts';
import type { Point3 } from './rig.ts';

/** Longest driver we render, seconds. */
const MAX_DRIVER_SECONDS = 60;
/** Drivers are tracked at this width at most: plenty for the mesh, and fast. */
const TRACK_WIDTH = 480;
const MAX_ANGLE = 15;

interface Measure {
  pose: [number, number, number];
  cx: number;
  cy: number;
  height: number;
  eyeR: number;
  eyeL: number;
  mouth: number;
  brow: number;
  smile: number;
}

const d2 = (a: Point3, b: Point3) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const mid = (a: Point3, b: Point3): Point3 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];

function measure(mesh: Point3[], pose: [number, number, number]): Measure {
  const h = Math.max(1, d2(mesh[FOREHEAD]!, mesh[CHIN]!));
  const w = Math.max(1, d2(mesh[CHEEK_R]!, mesh[CHEEK_L]!));
  const eye = (upper: number, lower: number, c: readonly [number, number]) =>
    d2(mesh[upper]!, mesh[lower]!) / Math.max(1, d2(mesh[c[0]]!, mesh[c[1]]!));
  const browHeight = (e: typeof EYE_R) => d2(mesh[e.brow[3]!]!, mid(mesh[e.upper[3]!]!, mesh[e.lower[3]!]!)) / h;
  return {
    pose,
    cx: (mesh[CHEEK_R]![0] + mesh[CHEEK_L]![0]) / 2,
    cy: (mesh[FOREHEAD]![1] + mesh[CHIN]![1]) / 2,
    height: h,
    eyeR: eye(EYE_R.upper[3]!, EYE_R.lower[3]!, EYE_R_CORNERS),
    eyeL: eye(EYE_L.upper[3]!, EYE_L.lower[3]!, EYE_L_CORNERS),
    mouth: d2(mesh[UPPER_LIP_INNER_MID]!, mesh[LOWER_LIP_INNER_MID]!) / h,
    brow: (browHeight(EYE_R) + browHeight(EYE_L)) / 2,
    smile: d2(mesh[MOUTH_CORNER_OUTER[0]]!, mesh[MOUTH_CORNER_OUTER[1]]!) / w,
  };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const percentile = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))]!;
};

/** Motion frames from per-frame measures (undefined where no face was found). */
export function motionFromMeasures(measures: (Measure | undefined)[]): MotionFrame[] {
  const found = measures.filter((m): m is Measure => m !== undefined);
  const first = found[0];
  if (!first) return [];
  const openEyeR = Math.max(first.eyeR, percentile(found.map((m) => m.eyeR), 0.8));
  const openEyeL = Math.max(first.eyeL, percentile(found.map((m) => m.eyeL), 0.8));
  const closedMouth = Math.min(first.mouth, percentile(found.map((m) => m.mouth), 0.1));
  let last = first;
  let prev = neutralFrame();
  return measures.map((m, i) => {
    const cur = m ?? last;
    last = cur;
    const raw: MotionFrame = {
      yaw: clamp(cur.pose[0] - first.pose[0], -MAX_ANGLE, MAX_ANGLE),
      pitch: clamp(cur.pose[1] - first.pose[1], -MAX_ANGLE, MAX_ANGLE),
      roll: clamp(cur.pose[2] - first.pose[2], -MAX_ANGLE, MAX_ANGLE),
      tx: clamp((cur.cx - first.cx) / first.height, -0.3, 0.3),
      ty: clamp((cur.cy - first.cy) / first.height, -0.3, 0.3),
      blinkR: clamp((openEyeR - cur.eyeR) / (0.7 * openEyeR), 0, 1),
      blinkL: clamp((openEyeL - cur.eyeL) / (0.7 * openEyeL), 0, 1),
      mouth: clamp((cur.mouth - closedMouth) / 0.12, 0, 1),
      brow: clamp((cur.brow - first.brow) / 0.05, 0, 1),
      smile: clamp((cur.smile - first.smile) / 0.1, 0, 1),
    };
    // Light smoothing of the pose against mesh jitter; eyes and mouth stay crisp.
    const k = i === 0 ? 1 : 0.6;
    const f: MotionFrame = {
      ...raw,
      yaw: prev.yaw + (raw.yaw - prev.yaw) * k,
      pitch: prev.pitch + (raw.pitch - prev.pitch) * k,
      roll: prev.roll + (raw.roll - prev.roll) * k,
      tx: prev.tx + (raw.tx - prev.tx) * k,
      ty: prev.ty + (raw.ty - prev.ty) * k,
    };
    prev = f;
    return f;
  });
}

export async function videoDriverMotion(path: string, _workDir: string): Promise<{ track: MotionTrack; audioPath?: string }> {
  const info = await probe(path).catch(() => undefined);
  const v = info?.video;
  if (!v || v.width < 16 || v.height < 16) throw new RenderError('DriverError', 'the driver video could not be decoded');
  const fps = v.fps && v.fps > 1 && v.fps <= 120 ? Math.round(v.fps * 100) / 100 : 25;
  const width = Math.min(TRACK_WIDTH, v.width) & ~1;
  const height = Math.max(2, Math.round((v.height * width) / v.width) & ~1);

  const human = await loadHuman();
  // Between detector runs human tracks the face box from the previous mesh.
  const base = humanConfig(1) as { face: { detector: object } };
  const config = { ...base, cacheSensitivity: 0.7, skipAllowed: true, face: { ...base.face, detector: { ...base.face.detector, skipFrames: 8, skipTime: 1e9 } } };
  const frameBytes = width * height * 3;
  const dec = track(spawn(FFMPEG_PATH, [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-t', String(MAX_DRIVER_SECONDS), '-i', path,
    '-map', '0:v:0', '-vf', `scale=${width}:${height}`, '-r', String(fps), '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
  ], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  dec.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => dec.on('close', resolve));

  const measures: (Measure | undefined)[] = [];
  let pending: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of dec.stdout as AsyncIterable<Buffer>) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= frameBytes) {
        const data = new Uint8Array(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
        const faces = await detectRaw(human, { width, height, data }, config);
        const f = faces.filter((x) => x.mesh.length >= 468).sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
        measures.push(f ? measure(f.mesh, posesOf(f)) : undefined);
      }
    }
  } finally {
    if (dec.exitCode === null) dec.kill('SIGKILL');
  }
  const code = await closed;
  if (measures.length === 0) {
    throw new RenderError('DriverError', `the driver video could not be decoded${code ? ` (${stderr.trim().split('\n').at(-1) ?? ''})` : ''}`);
  }
  const tracked = measures.filter(Boolean).length;
  if (tracked === 0) throw new RenderError('DriverError', 'no face found in the driver video');
  if (tracked < measures.length * 0.3) throw new RenderError('DriverError', 'the driver face is lost in most of the video');
  return { track: { fps, frames: motionFromMeasures(measures) }, audioPath: info?.audio ? path : undefined };
}
