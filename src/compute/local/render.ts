/**
 * One render, start to finish, inside the render process: decode the source, find faces,
 * build the rig, drive it frame by frame, lay the overlay and the logo over each frame,
 * pipe raw frames into ffmpeg.
 */
import { once } from 'node:events';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RenderError } from '../../errors.ts';
import type { RenderRequest, RenderResult } from '../interface.ts';
import { CROP_RESULT_SIDE } from '../result-frame.ts';
import { drawLayer, loadLogo, screenBlend, type Layer } from './compose.ts';
import { videoDriverMotion } from './driver-video.ts';
import { speechMotion } from './speech-driver.ts';
import { finishEncoding, startEncoder, type EncoderOptions } from './ffmpeg.ts';
import { chooseFace, detectFaces, type SourceFace } from './faces.ts';
import { cropSquare, decodeImage, evenSize } from './image.ts';
import { bankMotion, type MotionFrame, type MotionTrack } from './motion.ts';
import { openOverlay, probeOverlay, type OverlayFrames } from './overlay.ts';
import { buildRig, rigFrame, type Point3, type Rig } from './rig.ts';
import { wavBytes } from './song.ts';
import { warpTriangles, type RgbImage } from './warp.ts';
import { mouthTones, shadeMouth, type MouthTones } from './mouth.ts';
import { drawLayerRgba, loadBackground, overBackground, segmentPerson, withAlpha } from './matte.ts';
import { resize } from './resize.ts';
import { ALPHA_FORMATS } from '../interface.ts';

/** A render request as it crosses into the render process (no signal, no callbacks). */
export type RenderJob = Omit<RenderRequest, 'signal' | 'onProgress'>;

/** The face crop spans this many face boxes (the hosted service crops about 1.6-2x). */
const CROP_SCALE = 1.75;

interface Canvas {
  image: RgbImage;
  meshes: Point3[][];
}

/** The square crop around `face` (clamped to the picture), scaled to 512x512. */
export async function cropCanvas(src: RgbImage, face: SourceFace): Promise<Canvas> {
  const [l, t, r, b] = face.face.detection;
  const size = Math.min(src.width, src.height, Math.round(Math.max(r - l, b - t) * CROP_SCALE));
  const cx = (l + r) / 2, cy = (t + b) / 2 - 0.04 * size;
  const left = Math.round(Math.min(Math.max(0, cx - size / 2), src.width - size));
  const top = Math.round(Math.min(Math.max(0, cy - size / 2), src.height - size));
  const s = CROP_RESULT_SIDE / size;
  const image = await cropSquare(src, left, top, size, CROP_RESULT_SIDE);
  const mesh = face.mesh.map((p) => [(p[0] - left) * s, (p[1] - top) * s, p[2] * s] as Point3);
  return { image, meshes: [mesh] };
}

/** Faces to animate on the full picture: the chosen one, then the largest others that do not crowd it. */
function stitchFaces(faces: SourceFace[], chosen: SourceFace, max: number): SourceFace[] {
  const picked = [chosen];
  const apart = (a: SourceFace, b: SourceFace) => {
    const [al, at, ar, ab] = a.face.detection, [bl, bt, br, bb] = b.face.detection;
    const gap = 0.6 * Math.max(ar - al, br - bl);
    return al > br + gap || bl > ar + gap || at > bb + gap || bt > ab + gap;
  };
  for (const f of faces) {
    if (picked.length >= Math.max(1, max)) break;
    if (!picked.includes(f) && picked.every((p) => apart(p, f))) picked.push(f);
  }
  return picked;
}

async function motionFor(job: RenderJob): Promise<{ track: MotionTrack; audioPath?: string }> {
  if (job.driver.kind === 'video') return videoDriverMotion(job.driver.path, job.workDir);
  if (job.driver.kind === 'speech') return { track: await speechMotion(job.driver), audioPath: job.driver.audioPath };
  if (job.driver.kind === 'live') throw new RenderError('DriverError', 'a live driver belongs to a stream, not to a rendered video');
  const track = bankMotion(job.driver.category, job.driver.name);
  if (!track) throw new RenderError('DriverError', `no driver ${job.driver.category}/${job.driver.name} in the bank`);
  let audioPath: string | undefined;
  if (track.audio) {
    audioPath = join(job.workDir, `${job.jobId}-driver.wav`);
    await writeFile(audioPath, wavBytes(track.audio));
  }
  return { track, audioPath };
}

/** The face to animate, or a FaceError that says why there is none. */
export function requestedFace(faces: SourceFace[], want: RenderJob['face']): SourceFace {
  const chosen = chooseFace(faces, want);
  if (chosen) return chosen;
  if (faces.length === 0 || !want) throw new RenderError('FaceError', 'no face detected in the source image');
  const found = faces.map((f) => `[${f.face.top_left.join(', ')}] size ${f.face.size}`).join('; ');
  throw new RenderError(
    'FaceError',
    `no face found inside the requested face square (top_left [${want.top_left.join(', ')}], size ${want.size}); detected face squares: ${found}`,
  );
}

/** Draws the layers over an animated frame: the overlay's next frame, then the logo on top. */
async function composeLayers(frame: RgbImage, overlay: OverlayFrames | undefined, logo: Layer | undefined): Promise<void> {
  const over = overlay && (await overlay.next());
  if (over) {
    if (overlay.alpha) drawLayer(frame, { x: 0, y: 0, width: frame.width, height: frame.height, data: over });
    else screenBlend(frame, over);
  }
  if (logo) drawLayer(frame, logo);
}

export async function renderJob(job: RenderJob, onProgress: (done: number, total: number) => void): Promise<RenderResult> {
  const started = performance.now();
  const source = await decodeImage(job.sourcePath);
  // Inputs that fail cheaply are checked before the faces are searched.
  const whole = job.stitch ? evenSize(source) : undefined;
  const width = whole?.width ?? CROP_RESULT_SIDE, height = whole?.height ?? CROP_RESULT_SIDE;
  const logo = await loadLogo(job.logo, width, height);
  if (job.background?.kind === 'transparent' && !ALPHA_FORMATS.includes(job.resultFormat)) {
    throw new RenderError('ConfigError', `a transparent background needs a result format with alpha (webm or mov), not ${job.resultFormat}`);
  }
  const background = job.background ? await loadBackground(job.background, width, height) : undefined;
  const overlayAlpha = job.overlayPath ? (await probeOverlay(job.overlayPath)).alpha : false;
  const faces = await detectFaces(source);
  const chosen = requestedFace(faces, job.face);
  const { track, audioPath } = await motionFor(job);
  if (track.frames.length === 0) throw new RenderError('DriverError', 'the driver has no frames');

  const animated = whole ? stitchFaces(faces, chosen, job.maxAnimatedFaces) : [chosen];
  const canvas: Canvas = whole
    ? { image: whole, meshes: animated.map((f) => f.mesh) }
    : await cropCanvas(source, chosen);
  const { image } = canvas;
  const rig = buildRig(canvas.meshes, image.width, image.height, image);
  const matte = job.background ? await segmentPerson(image) : undefined;

  const total = track.frames.length;
  const overlay = job.overlayPath
    ? await openOverlay(job.overlayPath, { width, height, fps: track.fps, frames: total, alpha: overlayAlpha })
    : undefined;
  try {
    await encodeFrames(job, { image, rig, track, overlay, logo, audioPath, ...(matte ? { matte, background } : {}) }, onProgress);
  } finally {
    overlay?.close();
  }

  const seconds = (performance.now() - started) / 1000;
  const { size } = await stat(job.outputPath);
  const result: RenderResult = {
    metadata: {
      num_frames: total,
      processing_fps: Math.round((total / seconds) * 100) / 100,
      resolution: [String(image.width), String(image.height)],
      size_kib: Math.round((size / 1024) * 100) / 100,
      source_pose: chosen.pose,
      // The record holds a whole number (29.97 → 30); the video itself keeps the driver's exact rate.
      video_fps: Math.round(track.fps),
      faces: faces.map((f) => f.face),
    },
    faceIds: animated.map((f) => f.face.face_id),
  };
  if (job.outputResolution === undefined) return result;
  const transparent = job.background?.kind === 'transparent';
  return { ...result, metadata: await resize(job.outputPath, job.resultFormat, transparent, Math.round(job.outputResolution), result.metadata) };
}

/** Each rig's mouth colours, one per face, taken once from the picture it was built on. */
const rigTones = new WeakMap<Rig, MouthTones[]>();

function tonesOf(image: RgbImage, rig: Rig): MouthTones[] {
  let tones = rigTones.get(rig);
  if (!tones) {
    tones = rig.faces.map((f) => mouthTones(image, f.pivot[0], f.pivot[1] + 0.25 * f.height, 0.3 * f.height));
    rigTones.set(rig, tones);
  }
  return tones;
}

/** Draws `image` posed as `motion` into `frame`, and the person's matte along into `matte.into`. */
export function animateFrame(image: RgbImage, rig: Rig, motion: MotionFrame, frame: RgbImage, matte?: { from: Uint8Array; into: Uint8Array }): void {
  frame.data.set(image.data);
  matte?.into.set(matte.from);
  const { dst, mouths } = rigFrame(rig, motion);
  warpTriangles(image, frame, rig.tris, rig.src, dst, matte);
  const tones = mouths.length > 0 ? tonesOf(image, rig) : [];
  for (const m of mouths) shadeMouth(frame, m, tones[m.face]!);
}

interface FrameSources {
  image: RgbImage;
  rig: Rig;
  track: MotionTrack;
  overlay?: OverlayFrames;
  logo?: Layer;
  audioPath?: string;
  /** The person's alpha on `image` (when there is a background), and the picture behind (absent: transparent). */
  matte?: Uint8Array;
  background?: Uint8Array;
}

/** Animates, composes and encodes every frame of the track into `job.outputPath`. */
async function encodeFrames(job: RenderJob, s: FrameSources, onProgress: (done: number, total: number) => void): Promise<void> {
  const { image, rig, track, matte } = s;
  const total = track.frames.length;
  const transparent = matte !== undefined && s.background === undefined;
  const encoding: EncoderOptions = {
    width: image.width, height: image.height, fps: track.fps, format: job.resultFormat, alpha: transparent, outputPath: job.outputPath,
    audioPath: job.mute ? undefined : s.audioPath, durationSec: total / track.fps,
    ...(job.previewDir ? { previewDir: job.previewDir } : {}),
  };
  const encoder = startEncoder(encoding);
  let stderr = '';
  encoder.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  encoder.stdin.on('error', () => {});
  const exited = once(encoder, 'close') as Promise<[number | null]>;
  try {
    const frame: RgbImage = { width: image.width, height: image.height, data: new Uint8Array(image.data.length) };
    const frameMatte = matte && { from: matte, into: new Uint8Array(matte.length) };
    for (let i = 0; i < total; i++) {
      animateFrame(image, rig, track.frames[i]!, frame, frameMatte);
      let out: Uint8Array;
      if (!frameMatte) {
        await composeLayers(frame, s.overlay, s.logo);
        out = frame.data;
      } else if (s.background) {
        overBackground(frame, frameMatte.into, s.background);
        await composeLayers(frame, s.overlay, s.logo);
        out = frame.data;
      } else {
        // Transparent: the overlay lands on the person only; the logo keeps its own alpha.
        await composeLayers(frame, s.overlay, undefined);
        out = Buffer.allocUnsafe(frame.width * frame.height * 4);
        withAlpha(frame, frameMatte.into, out);
        if (s.logo) drawLayerRgba(out, frame.width, s.logo);
      }
      // The frame buffer is reused: the encoder gets a copy of it (an rgba frame is new each time).
      if (!encoder.stdin.write(out === frame.data ? Buffer.from(out) : out)) {
        await Promise.race([once(encoder.stdin, 'drain'), exited]);
      }
      if (encoder.exitCode !== null) break;
      if (i % 5 === 4 || i === total - 1) onProgress(i + 1, total);
    }
    encoder.stdin.end();
    const [code] = await exited;
    if (code !== 0) throw new Error(`ffmpeg failed (${code}): ${stderr.slice(-500)}`);
    await finishEncoding(encoding);
  } finally {
    if (encoder.exitCode === null) encoder.kill('SIGKILL');
  }
}
