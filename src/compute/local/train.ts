/**
 * Avatar training on the CPU, inside the render process (docs/compute-protocol.md, "Avatar
 * training"): the reference picture, the idle loop and the voice's pitch, from footage whose
 * checks passed. Frames come out of ffmpeg; faces are found with the renderer's detector.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { RenderError } from '../../errors.ts';
import { TRAIN_OUTPUT_FILES, type TrainRequest, type TrainResult } from '../interface.ts';
import { CROP_RESULT_SIDE } from '../result-frame.ts';
import { detectFaces, type SourceFace } from './faces.ts';
import { probe, runFfmpeg } from '../../media/ffmpeg.ts';
import { CHIN, FOREHEAD, LOWER_LIP_INNER_MID, UPPER_LIP_INNER_MID } from './landmarks.ts';
import { medianPitch } from './pitch.ts';
import type { RgbImage } from './warp.ts';

/** A training request as it crosses into the render process (no signal, no callbacks). */
export type TrainJob = Omit<TrainRequest, 'signal' | 'onProgress'>;

/** Frames of the idle window searched for the reference picture. */
export const TRAIN_SAMPLES = 14;
export const LOOP_FPS = 25;
/** The idle loop is at most this long, seconds. */
export const MAX_LOOP_SEC = 10;
/** Its end fades into its start over this long (less in a short window), seconds. */
const CROSSFADE_SEC = 1;
/** The shortest idle window a loop is cut from, seconds. */
export const MIN_IDLE_SEC = 1;
/** The voice is measured on at most this much speech, seconds. */
const MAX_SPEECH_SEC = 60;
const PITCH_RATE = 16_000;
/** The crop of the built-in presenters (docs/presenters.md): the face is 36 % of the side, its centre at 42 % of the height. */
const FACE_SHARE = 0.36;
const FACE_CENTRE_Y = 0.42;
/** Inner-lip gap over face height above which the mouth counts as open. */
const MOUTH_OPEN = 0.03;

export interface Square {
  left: number;
  top: number;
  size: number;
}

/**
 * The presenter square around a face box ([left, top, right, bottom], brow to chin) in a
 * `width` x `height` frame: side = face height / 0.36, horizontally centred on the face, the
 * face's centre at 42 % of the height, kept inside the frame (never padded: in a tight frame
 * the square shrinks to the short side).
 */
export function presenterSquare(face: [number, number, number, number], width: number, height: number): Square {
  const [l, t, r, b] = face;
  const size = Math.max(1, Math.min(Math.round((b - t) / FACE_SHARE), width, height));
  const clamp = (v: number, max: number) => Math.max(0, Math.min(Math.round(v), max));
  return { left: clamp((l + r) / 2 - size / 2, width - size), top: clamp((t + b) / 2 - size * FACE_CENTRE_Y, height - size), size };
}

/** The face mesh's bounding box, [left, top, right, bottom]. */
function meshBox(face: SourceFace): [number, number, number, number] {
  let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
  for (const [x, y] of face.mesh) {
    l = Math.min(l, x); r = Math.max(r, x);
    t = Math.min(t, y); b = Math.max(b, y);
  }
  return [l, t, r, b];
}

/** Inner-lip gap over the face's height (forehead to chin). */
export function mouthOpening(face: SourceFace): number {
  const m = face.mesh;
  const height = Math.hypot(m[CHIN]![0] - m[FOREHEAD]![0], m[CHIN]![1] - m[FOREHEAD]![1]);
  return height > 0 ? Math.hypot(m[LOWER_LIP_INNER_MID]![0] - m[UPPER_LIP_INNER_MID]![0], m[LOWER_LIP_INNER_MID]![1] - m[UPPER_LIP_INNER_MID]![1]) / height : 1;
}

export interface Candidate {
  sec: number;
  face: SourceFace;
  width: number;
  height: number;
}

/**
 * The reference frame: among frames with the mouth closed (all frames when none is), the most
 * frontal with the best detection score: score = confidence - (|yaw| + |pitch|) / 45° - mouth opening.
 */
export function chooseReference<T extends Pick<Candidate, 'face'>>(candidates: T[]): T | undefined {
  const closed = candidates.filter((c) => mouthOpening(c.face) < MOUTH_OPEN);
  const pool = closed.length ? closed : candidates;
  const score = (c: T) => c.face.face.detect_confidence - (Math.abs(c.face.pose[0]) + Math.abs(c.face.pose[1])) / 45 - mouthOpening(c.face);
  let best: T | undefined;
  for (const c of pool) if (!best || score(c) > score(best)) best = c;
  return best;
}

/** One decoded frame at `sec` (ffmpeg applies the file's rotation), or null past the end. */
async function frameAt(path: string, sec: number): Promise<RgbImage | null> {
  const r = await runFfmpeg(['-loglevel', 'error', '-ss', sec.toFixed(3), '-i', path, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'], { timeoutMs: 60_000 });
  if (r.code !== 0 || r.stdout.length === 0) return null;
  const { data, info } = await sharp(r.stdout).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Frames of the loop and of its crossfade for an idle window of `windowSec`. */
export function loopFrames(windowSec: number): { frames: number; fade: number } {
  const fade = Math.max(1, Math.min(Math.round(CROSSFADE_SEC * LOOP_FPS), Math.floor((windowSec * LOOP_FPS) / 5)));
  const frames = Math.min(MAX_LOOP_SEC * LOOP_FPS, Math.floor(windowSec * LOOP_FPS) - fade);
  return { frames, fade };
}

/**
 * The idle loop: `frames + fade` frames from `startSec`, cut to the square and scaled; the
 * output is frames [fade, fade + frames) with the first `fade` frames laid over its end,
 * fading in (alpha 0 → 1): its last frame is nearly the one before its first, so it loops
 * without a jump. H.264 yuv420p, 25 fps, no sound.
 */
async function writeLoop(job: TrainJob, startSec: number, sq: Square, frames: number, fade: number, outputPath: string): Promise<void> {
  const side = CROP_RESULT_SIDE;
  const filter = [
    `[0:v]fps=${LOOP_FPS},crop=${sq.size}:${sq.size}:${sq.left}:${sq.top},scale=${side}:${side}:flags=lanczos,format=yuv420p,split[a][b]`,
    `[a]trim=start_frame=${fade}:end_frame=${fade + frames},setpts=PTS-STARTPTS[main]`,
    `[b]trim=end_frame=${fade},setpts=PTS-STARTPTS,format=yuva420p,fade=t=in:s=0:n=${fade}:alpha=1,setpts=PTS+${(frames - fade) / LOOP_FPS}/TB[head]`,
    `[main][head]overlay=eof_action=pass,format=yuv420p[v]`,
  ].join(';');
  const r = await runFfmpeg([
    '-loglevel', 'error', '-y', '-ss', startSec.toFixed(3), '-t', ((frames + fade + 2) / LOOP_FPS).toFixed(3), '-i', job.footagePath,
    '-filter_complex', filter, '-map', '[v]', '-an', '-frames:v', String(frames),
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-r', String(LOOP_FPS), '-threads', '2',
    '-movflags', '+faststart', '-f', 'mp4', outputPath,
  ], { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`ffmpeg could not cut the idle loop: ${r.stderr.slice(-500)}`);
}

/** 16 kHz mono of the speech part (at most MAX_SPEECH_SEC), and its median pitch. */
async function voicePitch(job: TrainJob, durationSec: number, hasAudio: boolean): Promise<number | null> {
  const from = Math.max(0, job.speech.fromSec);
  const to = Math.min(job.speech.toSec, durationSec, from + MAX_SPEECH_SEC);
  if (!hasAudio || to - from < 0.5) return null;
  const r = await runFfmpeg(['-loglevel', 'error', '-ss', from.toFixed(3), '-t', (to - from).toFixed(3), '-i', job.footagePath, '-vn', '-ac', '1', '-ar', String(PITCH_RATE), '-f', 's16le', 'pipe:1'], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`ffmpeg could not read the footage's sound: ${r.stderr.slice(-300)}`);
  const pcm = new Int16Array(r.stdout.buffer.slice(r.stdout.byteOffset, r.stdout.byteOffset + (r.stdout.length & ~1)));
  return medianPitch(pcm, PITCH_RATE);
}

/** Trains one avatar: reference.png, idle.mp4 and the voice's pitch (see the header). */
export async function trainAvatar(job: TrainJob, onProgress: (done: number, total: number) => void): Promise<TrainResult> {
  const info = await probe(job.footagePath);
  if (!info.video || !info.durationSec) throw new RenderError('FootageError', 'the footage could not be decoded as a video');
  const duration = info.durationSec;
  const from = Math.max(0, job.idle.fromSec);
  const to = Math.min(job.idle.toSec, duration);
  if (!(to - from >= MIN_IDLE_SEC)) {
    throw new RenderError('FootageError', `the idle window (${round3(job.idle.fromSec)} s to ${round3(job.idle.toSec)} s) lies outside the ${round3(duration)} s footage or is shorter than ${MIN_IDLE_SEC} s`);
  }
  const total = TRAIN_SAMPLES + 3;
  let done = 0;
  const step = () => onProgress(++done, total);

  const candidates: Candidate[] = [];
  for (let i = 0; i < TRAIN_SAMPLES; i++) {
    const sec = from + ((i + 0.5) * (to - from)) / TRAIN_SAMPLES;
    const image = await frameAt(job.footagePath, sec);
    const face = image ? (await detectFaces(image))[0] : undefined;
    // Only the face is kept: the chosen frame is decoded again (14 full frames of 4K footage would be 350 MB).
    if (image && face) candidates.push({ sec: round3(sec), face, width: image.width, height: image.height });
    step();
  }
  const chosen = chooseReference(candidates);
  if (!chosen) throw new RenderError('FootageError', `no face was found in the idle window (${TRAIN_SAMPLES} frames from ${round3(from)} s to ${round3(to)} s)`);
  const sq = presenterSquare(meshBox(chosen.face), chosen.width, chosen.height);

  const side = CROP_RESULT_SIDE;
  const image = await frameAt(job.footagePath, chosen.sec);
  if (!image || image.width !== chosen.width || image.height !== chosen.height) throw new Error(`the frame at ${chosen.sec} s could not be decoded again`);
  const png = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length), {
    raw: { width: image.width, height: image.height, channels: 3 },
  }).extract({ left: sq.left, top: sq.top, width: sq.size, height: sq.size }).resize(side, side, { kernel: 'lanczos3' }).png().toBuffer();
  await writeFile(join(job.outputDir, TRAIN_OUTPUT_FILES.reference), png);
  step();

  const { frames, fade } = loopFrames(to - from);
  const start = from + Math.max(0, (to - from - (frames + fade) / LOOP_FPS) / 2);
  await writeLoop(job, start, sq, frames, fade, join(job.outputDir, TRAIN_OUTPUT_FILES.idle));
  step();

  const pitchHz = await voicePitch(job, duration, info.audio !== undefined);
  step();
  return { referenceSec: chosen.sec, loopSec: frames / LOOP_FPS, size: side, pitchHz };
}
