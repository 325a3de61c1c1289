/**
 * Face sampling on videos the test makes from the built-in presenters' pictures: one face in
 * a wide frame, two faces, none, a mouth opened by the renderer's rig, the same person and
 * another one, the asked time range, and the analyzer's queue, abort and close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../src/compute/local/image.ts';
import { detectFaces } from '../../src/compute/local/faces.ts';
import { neutralFrame } from '../../src/compute/local/motion.ts';
import { animateFrame, cropCanvas } from '../../src/compute/local/render.ts';
import { buildRig } from '../../src/compute/local/rig.ts';
import { createFaceAnalyzer, type FaceAnalyzer } from '../../src/footage/faces.ts';
import { IDENTITY_THRESHOLDS, identityScore } from '../../src/footage/identity.ts';
import { ffmpeg, PRESENTER, stillVideo } from './face-videos.ts';

let dir: string;
let analyzer: FaceAnalyzer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-footage-faces-'));
  analyzer = createFaceAnalyzer();
});
afterAll(async () => {
  await analyzer.close();
  await rm(dir, { recursive: true, force: true });
});

/** Grace in a 16:9 frame, her face a little left of the middle. */
const wideGrace = () => stillVideo(join(dir, 'grace-wide.mp4'), PRESENTER('grace'), { seconds: 4, vf: 'scale=270:270,pad=480:270:150:0' });

describe('the face analyzer', () => {
  it('finds the one face of every frame of a wide video, frontal, with its descriptor, at evenly spread times', async () => {
    const frames = await analyzer.sample(wideGrace(), { count: 4 });
    expect(frames.map((f) => f.timeSec)).toEqual([0.5, 1.5, 2.5, 3.5]);
    for (const f of frames) {
      expect(f).toMatchObject({ width: 480, height: 270 });
      expect(f.faces).toHaveLength(1);
      const [x, y, w, h] = f.faces[0]!.box;
      // The face is inside the picture (150..420 across), not stretched over the frame.
      expect(x).toBeGreaterThanOrEqual(150);
      expect(x + w).toBeLessThanOrEqual(420);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(h).toBeGreaterThan(80);
      expect(Math.abs(w - h)).toBeLessThan(0.2 * h);
      expect(f.faces[0]!.score).toBeGreaterThan(0.5);
      expect(Math.abs(f.faces[0]!.yaw)).toBeLessThan(20);
      expect(Math.abs(f.faces[0]!.pitch)).toBeLessThan(20);
      expect(f.faces[0]!.descriptor).toHaveLength(1024);
    }
  });

  it('finds two faces side by side, largest first, and none in a test pattern', async () => {
    const two = join(dir, 'two.mp4');
    ffmpeg('-loop', '1', '-i', PRESENTER('ernst'), '-loop', '1', '-i', PRESENTER('grace'), '-t', '2', '-filter_complex',
      '[0]scale=300:300[a];[1]scale=240:240,pad=240:300:0:30[b];[a][b]hstack,format=yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', two);
    const frames = await analyzer.sample(two, { count: 2 });
    for (const f of frames) {
      expect(f.faces).toHaveLength(2);
      expect(f.faces[0]!.box[2] * f.faces[0]!.box[3]).toBeGreaterThan(f.faces[1]!.box[2] * f.faces[1]!.box[3]);
      expect(f.faces[0]!.box[0]).toBeLessThan(300); // Ernst, on the left, is the larger
      expect(f.faces[1]!.box[0]).toBeGreaterThanOrEqual(300);
    }
    const none = join(dir, 'pattern.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=2', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', none);
    const empty = await analyzer.sample(none, { count: 3 });
    expect(empty).toHaveLength(3);
    expect(empty.every((f) => f.faces.length === 0)).toBe(true);
  });

  it('tells the same person from another: Grace wide and square against Grace, and against Ernst', async () => {
    const [wide, square, ernst] = await Promise.all([
      analyzer.sample(wideGrace(), { count: 3 }),
      analyzer.sample(stillVideo(join(dir, 'grace-square.mp4'), PRESENTER('grace'), { seconds: 2, vf: 'hflip,scale=360:360' }), { count: 3 }),
      analyzer.sample(stillVideo(join(dir, 'ernst.mp4'), PRESENTER('ernst'), { seconds: 2, vf: 'scale=360:360' }), { count: 3 }),
    ]);
    const same = identityScore(wide, square);
    expect(same.pairs).toBe(9);
    expect(same.median).toBeGreaterThanOrEqual(IDENTITY_THRESHOLDS.accept);
    expect(identityScore(wide, ernst).median).toBeLessThan(IDENTITY_THRESHOLDS.review);
  });

  it('measures the mouth: shut on the picture, open where the rig opens it, within the asked range', async () => {
    const src = await decodeImage(PRESENTER('grace'));
    const { image, meshes } = await cropCanvas(src, (await detectFaces(src))[0]!);
    const rig = buildRig(meshes, image.width, image.height);
    for (const [i, mouth] of [0, 1].entries()) {
      const frame = { width: image.width, height: image.height, data: new Uint8Array(image.data.length) };
      animateFrame(image, rig, { ...neutralFrame(), mouth }, frame);
      await sharp(Buffer.from(frame.data), { raw: { width: frame.width, height: frame.height, channels: 3 } }).png().toFile(join(dir, `mouth-${i}.png`));
    }
    const file = join(dir, 'mouth.mp4');
    // One second shut, one second open.
    ffmpeg('-framerate', '1', '-i', join(dir, 'mouth-%d.png'), '-vf', 'fps=25,format=yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', file);
    const shut = await analyzer.sample(file, { count: 2, fromSec: 0, toSec: 1 });
    const open = await analyzer.sample(file, { count: 2, fromSec: 1, toSec: 2 });
    expect(shut.map((f) => f.timeSec)).toEqual([0.25, 0.75]);
    expect(open.map((f) => f.timeSec)).toEqual([1.25, 1.75]);
    for (const f of shut) expect(f.faces[0]!.mouthOpen).toBeLessThan(0.02);
    for (const f of open) expect(f.faces[0]!.mouthOpen).toBeGreaterThan(0.04);
  });

  it('runs one analysis at a time, stops when aborted, and refuses work once closed', async () => {
    const file = stillVideo(join(dir, 'small.mp4'), PRESENTER('mehmet'), { seconds: 2, vf: 'scale=240:240' });
    const own = createFaceAnalyzer();
    try {
      const ac = new AbortController();
      const first = own.sample(file, { count: 3 });
      const aborted = own.sample(file, { count: 3, signal: ac.signal });
      const third = own.sample(file, { count: 2 });
      ac.abort();
      expect((await first).map((f) => f.faces.length)).toEqual([1, 1, 1]);
      expect(await aborted.then(() => 'resolved', (e: Error) => e.name)).toBe('AbortError');
      expect((await third).map((f) => f.faces.length)).toEqual([1, 1]);
    } finally {
      await own.close();
    }
    await expect(own.sample(file, { count: 1 })).rejects.toThrow(/closed/);
  });
});
