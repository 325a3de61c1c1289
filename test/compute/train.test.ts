/** Avatar training on the local backend: reference picture, seamless idle loop, voice pitch, FootageError. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import sharp from 'sharp';
import type { ComputeBackend, TrainRequest } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { decodeImage } from '../../src/compute/local/image.ts';
import { detectFaces } from '../../src/compute/local/faces.ts';
import { chooseReference, loopFrames, presenterSquare } from '../../src/compute/local/train.ts';
import { renderError, videoFacts } from '../helpers/video.ts';
import { makeFootage } from '../helpers/train-footage.ts';

let dir: string;
let backend: ComputeBackend;
let footage: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mimic-train-'));
  backend = createLocalBackend();
  // 24 s: a 180 Hz voice for 13 s, then 11 s of silence with the face idle (a slow zoom).
  footage = makeFootage(join(dir, 'footage.mp4'), { seconds: 24, voiceSec: 13, voiceHz: 180 });
});
afterAll(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(over: Partial<TrainRequest> = {}): TrainRequest & { progress: [number, number][] } {
  const out = join(dir, `out-${++n}`);
  mkdirSync(out);
  const progress: [number, number][] = [];
  return {
    jobId: `train_${n}`, footagePath: footage, idle: { fromSec: 13, toSec: 24 }, speech: { fromSec: 0, toSec: 13 },
    outputDir: out, workDir: dir, signal: new AbortController().signal, onProgress: (d, t) => progress.push([d, t]), progress, ...over,
  };
}

/** Frames of a video as 64x64 grey pictures. */
function greyFrames(file: string): Buffer[] {
  const r = spawnSync(ffmpeg.path, ['-v', 'error', '-i', file, '-vf', 'scale=64:64', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { maxBuffer: 64 * 1024 * 1024 });
  const out: Buffer[] = [];
  for (let i = 0; i + 4096 <= r.stdout.length; i += 4096) out.push(r.stdout.subarray(i, i + 4096));
  return out;
}
const mad = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

describe('local avatar training', () => {
  it('writes a 512x512 reference with the face cut like a presenter, a seamless 10 s idle loop, and the pitch of the voice', async () => {
    const req = request();
    const result = await backend.run('avatar.train', req);
    expect(result.size).toBe(512);
    expect(result.loopSec).toBe(10);
    expect(result.referenceSec).toBeGreaterThanOrEqual(13);
    expect(result.referenceSec).toBeLessThanOrEqual(24);
    expect(Math.abs(result.pitchHz! - 180)).toBeLessThan(3);
    // Progress counts up to its total.
    expect(req.progress.length).toBeGreaterThan(3);
    expect(req.progress.at(-1)![0]).toBe(req.progress.at(-1)![1]);

    const reference = join(req.outputDir, 'reference.png');
    const meta = await sharp(reference).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
    // The face is cut as the built-in presenters are: about 36 % of the height, centred, upper half.
    const faces = await detectFaces(await decodeImage(reference));
    expect(faces).toHaveLength(1);
    const [l, t, r, b] = faces[0]!.face.detection;
    expect((b - t) / 512).toBeGreaterThan(0.25);
    expect((b - t) / 512).toBeLessThan(0.55);
    expect(Math.abs((l + r) / 2 - 256) / 512).toBeLessThan(0.12);
    expect((t + b) / 2).toBeLessThan(256);

    const idle = join(req.outputDir, 'idle.mp4');
    const facts = videoFacts(idle);
    expect(facts).toMatchObject({ brand: 'isom', width: 512, height: 512, hasVideo: true, hasAudio: false, fps: 25, decodeErrors: '' });
    expect(facts.frames).toBe(250);
    expect(Math.abs(facts.durationSec - 10)).toBeLessThan(0.1);
    const info = spawnSync(ffmpeg.path, ['-hide_banner', '-i', idle], { encoding: 'utf8' }).stderr;
    expect(info).toMatch(/h264.*yuv420p/);

    // Seamless: the jump from the last frame back to the first is no larger than a step between
    // neighbouring frames, while frames far apart in the loop differ clearly.
    const frames = greyFrames(idle);
    const steps = frames.slice(1).map((f, i) => mad(f, frames[i]!)).sort((a, b) => a - b);
    const wrap = mad(frames.at(-1)!, frames[0]!);
    const far = Math.max(...frames.map((f) => mad(f, frames[0]!)));
    expect(far).toBeGreaterThan(5 * steps[Math.floor(steps.length / 2)]!);
    expect(wrap).toBeLessThanOrEqual(steps.at(-1)! * 1.05);
    expect(wrap).toBeLessThan(far / 4);
  });

  it('cuts a shorter loop from a short idle window and measures no pitch where nothing is voiced', async () => {
    const req = request({ idle: { fromSec: 18, toSec: 22 }, speech: { fromSec: 14, toSec: 24 } });
    const result = await backend.run('avatar.train', req);
    const { frames } = loopFrames(4);
    expect(result.loopSec).toBe(frames / 25);
    expect(result.loopSec).toBeLessThan(4);
    expect(result.loopSec).toBeGreaterThan(2.5);
    expect(result.pitchHz).toBeNull();
    expect(videoFacts(join(req.outputDir, 'idle.mp4')).frames).toBe(frames);
  });

  it('fails with FootageError when the idle window shows no face, or lies outside the footage', async () => {
    const blank = makeFootage(join(dir, 'blank.mp4'), { seconds: 6, voiceSec: 2, picture: null });
    const req = request({ footagePath: blank, idle: { fromSec: 3, toSec: 6 }, speech: { fromSec: 0, toSec: 2 } });
    const err = await renderError(backend.run('avatar.train', req));
    expect(err.kind).toBe('FootageError');
    expect(err.description).toMatch(/no face/);
    expect(existsSync(join(req.outputDir, 'idle.mp4'))).toBe(false);

    const outside = await renderError(backend.run('avatar.train', request({ idle: { fromSec: 30, toSec: 40 } })));
    expect(outside.kind).toBe('FootageError');
    expect(outside.description).toMatch(/outside/);
    const text = join(dir, 'not-a-video.mp4');
    spawnSync('sh', ['-c', `echo hello > ${text}`]);
    expect((await renderError(backend.run('avatar.train', request({ footagePath: text })))).kind).toBe('FootageError');
  });

  it('stops at once when aborted', async () => {
    const controller = new AbortController();
    const req = request({ signal: controller.signal });
    const p = backend.run('avatar.train', req);
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('choosing and cutting', () => {
  const face = (conf: number, yaw: number, mouth: number) => {
    const mesh = Array.from({ length: 468 }, () => [0, 0, 0] as [number, number, number]);
    mesh[10] = [100, 0, 0];
    mesh[152] = [100, 200, 0];
    mesh[13] = [100, 150, 0];
    mesh[14] = [100, 150 + mouth * 200, 0];
    return { face: { face: { detect_confidence: conf } as never, mesh, pose: [yaw, 0, 0] as [number, number, number] } };
  };
  it('prefers a closed mouth, then a frontal face, then the detection score', () => {
    const open = face(0.99, 0, 0.1), turned = face(0.95, 25, 0), frontal = face(0.9, 2, 0.01);
    expect(chooseReference([open, turned, frontal])).toBe(frontal);
    expect(chooseReference([open])).toBe(open);
    const confident = face(0.9, 1, 0.005);
    expect(chooseReference([face(0.8, 1, 0), confident])).toBe(confident);
    expect(chooseReference([])).toBeUndefined();
  });
  it('cuts the square as docs/presenters.md says: side = face height / 0.36, centre at 42 %, kept inside', () => {
    expect(presenterSquare([300, 200, 400, 326], 1280, 720)).toEqual({ left: 175, top: 116, size: 350 });
    // Near the top edge: the square is kept inside the frame.
    expect(presenterSquare([300, 10, 400, 136], 1280, 720).top).toBe(0);
    // A face too large for the frame: the square shrinks to the short side.
    expect(presenterSquare([0, 0, 400, 400], 640, 480)).toEqual({ left: 0, top: 0, size: 480 });
  });
});
