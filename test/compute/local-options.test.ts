/**
 * Every animation option rendered for real by the local backend, checked on the decoded
 * result: logo, overlay video, stitch (seams, several faces), the requested face.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeBackend, LogoInput, RenderRequest, RenderResult } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { activeProcesses, runFfmpeg } from '../../src/media/ffmpeg.ts';
import { bankMotion } from '../../src/compute/local/motion.ts';
import { hasAlpha, openOverlay, videoPixelFormat } from '../../src/compute/local/overlay.ts';
import { SAMPLE_PORTRAIT as SAMPLE, encodeFrames, meanColour, meanDiff, renderError, renderRequest, rgbFrame, videoFacts } from '../helpers/video.ts';

/** A lively 6 s driver: big enough motion to see in a small face, short enough to render fast. */
const DRIVER = { kind: 'bank', category: 'fun', name: 'driver-03' } as const;
const TRACK = bankMotion(DRIVER.category, DRIVER.name)!;
const BUSIEST = (() => {
  const motion = TRACK.frames.map((f) => Math.abs(f.yaw) + Math.abs(f.roll) + Math.abs(f.pitch) + 10 * f.mouth);
  return motion.indexOf(Math.max(...motion));
})();

type Box = { x: number; y: number; w: number; h: number };
type Rendered = { req: RenderRequest; result: RenderResult };

let dir: string;
let backend: ComputeBackend;
/** The sample portrait on the left and a smaller grey copy on the right: two faces, 880x512. */
let twoFaces: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-options-'));
  backend = createLocalBackend();
  twoFaces = join(dir, 'two-faces.png');
  const small = await sharp(SAMPLE).resize(340, 340).greyscale().toColourspace('srgb').png().toBuffer();
  await sharp({ create: { width: 880, height: 512, channels: 3, background: '#808080' } })
    .composite([{ input: SAMPLE, left: 0, top: 0 }, { input: small, left: 530, top: 140 }])
    .png()
    .toFile(twoFaces);
});

afterAll(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (over: Partial<RenderRequest> & { name: string }): RenderRequest => renderRequest(dir, { driver: DRIVER, ...over });

/** Renders once, however many tests ask for it. */
const cached = new Map<string, Promise<Rendered>>();
function rendered(over: Partial<RenderRequest> & { name: string }): Promise<Rendered> {
  let p = cached.get(over.name);
  if (!p) {
    const req = request(over);
    p = backend.run('animation.render', req).then((result) => ({ req, result }));
    cached.set(over.name, p);
  }
  return p;
}

const colourDistance = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

/**
 * Bounding box of the pixels where two rgb frames differ by more than `threshold` in some
 * channel (and, with `light`, that are lighter than it in every channel of `b`).
 */
function changedBox(a: Buffer, b: Buffer, width: number, height: number, threshold: number, light = 0): Box | undefined {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const changed = Math.abs(a[o]! - b[o]!) > threshold || Math.abs(a[o + 1]! - b[o + 1]!) > threshold || Math.abs(a[o + 2]! - b[o + 2]!) > threshold;
      if (changed && Math.min(b[o]!, b[o + 1]!, b[o + 2]!) > light) {
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
    }
  }
  return x1 < 0 ? undefined : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/** Mean absolute difference over the pixels outside `box` (grown by `pad`). */
function meanDiffOutside(a: Buffer, b: Buffer, width: number, height: number, box: Box, pad: number): number {
  let sum = 0, n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x >= box.x - pad && x < box.x + box.w + pad && y >= box.y - pad && y < box.y + box.h + pad) continue;
      const o = (y * width + x) * 3;
      sum += Math.abs(a[o]! - b[o]!) + Math.abs(a[o + 1]! - b[o + 1]!) + Math.abs(a[o + 2]! - b[o + 2]!);
      n += 3;
    }
  }
  return sum / n;
}

/** A logo 90x40: magenta opaque | green fully transparent | yellow at half alpha, 30 px each. */
async function bandLogo(path: string): Promise<void> {
  const w = 90, h = 40;
  const px = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      px.set(x < 30 ? [255, 0, 255, 255] : x < 60 ? [0, 255, 0, 0] : [255, 255, 0, 128], (y * w + x) * 4);
    }
  }
  await sharp(px, { raw: { width: w, height: h, channels: 4 } }).png().toFile(path);
}

describe('logo', () => {
  const plain = () => rendered({ name: 'plain' });
  let bands: string;
  beforeAll(async () => {
    bands = join(dir, 'bands.png');
    await bandLogo(bands);
  });
  /** Frame `index` of the plain render and of the same job with `logo`. */
  const beside = async (name: string, logo: LogoInput, index: number): Promise<[Buffer, Buffer]> => {
    const [a, b] = await Promise.all([plain(), rendered({ name, logo })]);
    return [rgbFrame(a.req.outputPath, index, 512, 512), rgbFrame(b.req.outputPath, index, 512, 512)];
  };

  it('draws the default logo in the bottom-right corner and changes nothing else', async () => {
    for (const i of [0, BUSIEST]) {
      const [a, b] = await beside('logo-default', { kind: 'default' }, i);
      const box = changedBox(a, b, 512, 512, 40)!;
      expect(box, `frame ${i}`).toBeDefined();
      // A wordmark about a fifth of the side wide, inside a margin of the bottom-right corner.
      expect(box.x).toBeGreaterThan(512 * 0.6);
      expect(box.y).toBeGreaterThan(512 * 0.8);
      expect(box.x + box.w).toBeLessThan(512 - 8);
      expect(box.y + box.h).toBeLessThan(512 - 8);
      expect(box.w).toBeGreaterThan(512 * 0.15);
      expect(box.w).toBeLessThan(512 * 0.3);
      expect(meanDiffOutside(a, b, 512, 512, box, 6)).toBeLessThan(1.5);
      // White glyphs.
      let white = 0;
      for (let y = box.y; y < box.y + box.h; y++) {
        for (let x = box.x; x < box.x + box.w; x++) if (Math.min(...b.subarray((y * 512 + x) * 3, (y * 512 + x) * 3 + 3)) > 225) white++;
      }
      expect(white).toBeGreaterThan(100);
    }
  }, 120_000);

  it('sizes the default logo to the picture: the same share of a small stitched picture', async () => {
    const small = join(dir, 'small.png');
    await sharp(SAMPLE).resize(300, 300).png().toFile(small);
    const [{ req: stitched }, { req: stitchedNone }] = await Promise.all([
      rendered({ name: 'logo-small-stitch', sourcePath: small, stitch: true, logo: { kind: 'default' } }),
      rendered({ name: 'logo-small-stitch-none', sourcePath: small, stitch: true }),
    ]);
    // The logo's white glyphs: how far its translucent plate shows depends on what is under it.
    const cropBox = changedBox(...(await beside('logo-default', { kind: 'default' }, 0)), 512, 512, 40, 190)!;
    const smallBox = changedBox(rgbFrame(stitchedNone.outputPath, 0, 300, 300), rgbFrame(stitched.outputPath, 0, 300, 300), 300, 300, 40, 190)!;
    expect(smallBox).toBeDefined();
    // Width, height and margins as shares of the side agree to within one percent of it.
    const shares = (b: Box, side: number) => [b.w, b.h, side - b.x - b.w, side - b.y - b.h].map((v) => v / side);
    const [small512, small300] = [shares(cropBox, 512), shares(smallBox, 300)];
    small512.forEach((v, k) => expect(Math.abs(v - small300[k]!)).toBeLessThan(0.01));
  }, 120_000);

  it('draws a custom logo at a position, with its alpha', async () => {
    for (const i of [0, BUSIEST]) {
      const [a, b] = await beside('logo-custom', { kind: 'image', path: bands, position: [100, 60] }, i);
      const inner = (x: number): Box => ({ x: 100 + x + 4, y: 64, w: 22, h: 32 });
      expect(colourDistance(meanColour(b, 512, inner(0)), [255, 0, 255])).toBeLessThan(20);
      // The transparent band (green if alpha were ignored) shows the frame underneath.
      expect(colourDistance(meanColour(b, 512, inner(30)), meanColour(a, 512, inner(30)))).toBeLessThan(8);
      // The half-transparent band: halfway between the frame and yellow.
      const under = meanColour(a, 512, inner(60));
      const half = under.map((v, k) => (v * 127 + [255, 255, 0][k]! * 128) / 255);
      expect(colourDistance(meanColour(b, 512, inner(60)), half)).toBeLessThan(10);
      expect(meanDiffOutside(a, b, 512, 512, { x: 100, y: 60, w: 90, h: 40 }, 6)).toBeLessThan(1.5);
    }
  }, 120_000);

  it('counts a negative position back from the last pixel and clips what falls outside', async () => {
    // Top-left corner at (512 - 30, 512 - 20): only the magenta band's top half is inside.
    const [a, b] = await beside('logo-negative', { kind: 'image', path: bands, position: [-30, -20] }, 0);
    expect(colourDistance(meanColour(b, 512, { x: 486, y: 496, w: 22, h: 12 }), [255, 0, 255])).toBeLessThan(20);
    // The logo starts exactly at column 482 and row 492.
    const column = (f: Buffer, x: number) => meanColour(f, 512, { x, y: 496, w: 1, h: 12 });
    const row = (f: Buffer, y: number) => meanColour(f, 512, { x: 486, y, w: 22, h: 1 });
    const nearer = (c: number[], under: number[]) => colourDistance(c, [255, 0, 255]) < colourDistance(c, under);
    expect(nearer(column(b, 482), column(a, 482))).toBe(true);
    expect(nearer(column(b, 481), column(a, 481))).toBe(false);
    expect(nearer(row(b, 492), row(a, 492))).toBe(true);
    expect(nearer(row(b, 491), row(a, 491))).toBe(false);
    expect(meanDiffOutside(a, b, 512, 512, { x: 482, y: 492, w: 30, h: 20 }, 6)).toBeLessThan(1.5);
  }, 120_000);

  it('fails with LogoError when the logo lies outside the frame, naming the size and position', async () => {
    for (const position of [[512, 0], [0, -600], [-700, 10]] as [number, number][]) {
      const err = await renderError(backend.run('animation.render', request({ name: 'logo-outside', logo: { kind: 'image', path: bands, position } })));
      expect(err.kind).toBe('LogoError');
      expect(err.description).toContain('512x512');
      expect(err.description).toContain(`[${position[0]}, ${position[1]}]`);
    }
  }, 60_000);

  it('fails with LogoError on a logo that does not decode', async () => {
    const logo = join(dir, 'broken-logo.png');
    await writeFile(logo, 'not a png');
    const err = await renderError(backend.run('animation.render', request({ name: 'logo-broken', logo: { kind: 'image', path: logo, position: [0, 0] } })));
    expect(err.kind).toBe('LogoError');
  }, 60_000);
});

describe('overlay video', () => {
  const plain = () => rendered({ name: 'plain' });

  it('screen-blends an overlay without alpha, scaled and resampled to the result, until it ends', async () => {
    // 128x128 at 50 fps for 2 s: black with a red 32x32 box moving one pixel a frame.
    const frames = Array.from({ length: 100 }, (_, i) => {
      const f = new Uint8Array(128 * 128 * 3);
      for (let y = 48; y < 80; y++) for (let x = i; x < Math.min(128, i + 32); x++) f[(y * 128 + x) * 3] = 255;
      return f;
    });
    const path = join(dir, 'red-box.mp4');
    encodeFrames(path, frames, { width: 128, height: 128, fps: 50, pixFmt: 'rgb24', codec: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] });
    const [{ req: none }, { req: over, result }] = await Promise.all([plain(), rendered({ name: 'overlay-screen', overlayPath: path })]);
    expect(result.metadata.num_frames).toBe(TRACK.frames.length);
    expect(videoFacts(over.outputPath).frames).toBe(TRACK.frames.length);
    // Result frame j is at j/25 s: overlay frame 2j, its box at x = 2j overlay pixels = 8j result pixels.
    for (const j of [0, 20, 40]) {
      const a = rgbFrame(none.outputPath, j, 512, 512), b = rgbFrame(over.outputPath, j, 512, 512);
      const box: Box = { x: 8 * j + 16, y: 192 + 12, w: 96, h: 104 };
      const [r, g, bl] = meanColour(b, 512, box);
      const under = meanColour(a, 512, box);
      expect(r, `frame ${j}`).toBeGreaterThan(235);
      // Screen blend with pure red keeps green and blue: an opaque paste would zero them.
      expect(Math.abs(g - under[1])).toBeLessThan(12);
      expect(Math.abs(bl - under[2])).toBeLessThan(12);
      // Black is transparent.
      expect(meanDiffOutside(a, b, 512, 512, { x: 8 * j, y: 192, w: 128, h: 128 }, 12)).toBeLessThan(1.5);
    }
    // A 2 s overlay over a 6 s result: gone after it ends.
    const late = TRACK.frames.length - 10;
    expect(meanDiff(rgbFrame(none.outputPath, late, 512, 512), rgbFrame(over.outputPath, late, 512, 512), 512, { x: 0, y: 0, w: 512, h: 512 })).toBeLessThan(1.5);
  }, 120_000);

  it('blends an overlay with an alpha channel (qtrle mov) by its alpha', async () => {
    // Fully transparent white, an opaque blue box and a half-transparent green box.
    const frame = new Uint8Array(128 * 128 * 4);
    for (let y = 0; y < 128; y++) {
      for (let x = 0; x < 128; x++) {
        const px = x >= 8 && x < 56 && y >= 8 && y < 56 ? [0, 0, 255, 255]
          : x >= 72 && x < 120 && y >= 72 && y < 120 ? [0, 255, 0, 128] : [255, 255, 255, 0];
        frame.set(px, (y * 128 + x) * 4);
      }
    }
    const path = join(dir, 'alpha.mov');
    encodeFrames(path, Array(25).fill(frame), { width: 128, height: 128, fps: 25, pixFmt: 'rgba', codec: ['-c:v', 'qtrle', '-pix_fmt', 'argb'] });
    const [{ req: none }, { req: over }] = await Promise.all([plain(), rendered({ name: 'overlay-alpha', overlayPath: path })]);
    const a = rgbFrame(none.outputPath, 10, 512, 512), b = rgbFrame(over.outputPath, 10, 512, 512);
    expect(colourDistance(meanColour(b, 512, { x: 48, y: 48, w: 160, h: 160 }), [0, 0, 255])).toBeLessThan(15);
    const greenBox: Box = { x: 300, y: 300, w: 168, h: 168 };
    const half = meanColour(a, 512, greenBox).map((v, k) => (v * 127 + [0, 255, 0][k]! * 128) / 255);
    expect(colourDistance(meanColour(b, 512, greenBox), half)).toBeLessThan(8);
    // The transparent white does not whiten the frame (a screen blend would).
    const clear: Box = { x: 260, y: 20, w: 200, h: 200 };
    expect(meanDiff(a, b, 512, clear)).toBeLessThan(1.5);
  }, 120_000);

  it('draws the logo over the overlay, so a watermark stays visible', async () => {
    const path = join(dir, 'opaque-blue.mov');
    encodeFrames(path, Array(25).fill(new Uint8Array(64 * 64 * 4).map((_, i) => [0, 0, 255, 255][i % 4]!)), {
      width: 64, height: 64, fps: 25, pixFmt: 'rgba', codec: ['-c:v', 'qtrle', '-pix_fmt', 'argb'],
    });
    const { req } = await rendered({ name: 'overlay-under-logo', overlayPath: path, logo: { kind: 'default' } });
    const frame = rgbFrame(req.outputPath, 5, 512, 512);
    expect(colourDistance(meanColour(frame, 512, { x: 0, y: 0, w: 300, h: 300 }), [0, 0, 255])).toBeLessThan(10);
    let white = 0;
    for (let y = 400; y < 512; y++) for (let x = 300; x < 512; x++) if (Math.min(...frame.subarray((y * 512 + x) * 3, (y * 512 + x) * 3 + 3)) > 200) white++;
    expect(white).toBeGreaterThan(100);
  }, 120_000);

  it('reads the pixel format of ffmpeg -i output, and tracks its decoder for aborts', async () => {
    const line = (rest: string) => `  Stream #0:0(und): Video: ${rest}\n`;
    expect(videoPixelFormat(line('h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709, progressive), 1920x1080 [SAR 1:1 DAR 16:9], 25 fps'))).toBe('yuv420p');
    expect(videoPixelFormat(line('prores (4444) (ap4h / 0x68347061), yuva444p12le(bt709, progressive), 1280x720, 25 fps'))).toBe('yuva444p12le');
    expect(videoPixelFormat(line('qtrle (rle  / 0x20656C72), bgra(progressive), 128x128, 25 fps'))).toBe('bgra');
    expect(videoPixelFormat('  Stream #0:0(und): Audio: aac (LC), 44100 Hz, mono\n')).toBeUndefined();
    for (const [format, alpha] of [['yuv420p', false], ['rgb24', false], ['yuva420p', true], ['argb', true], ['gbrap10le', true], ['ya8', true], ['rgba64le', true]] as const) {
      expect(hasAlpha(format), format).toBe(alpha);
    }

    const path = join(dir, 'tracked.mp4');
    const r = await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=10', '-pix_fmt', 'yuv420p', path]);
    expect(r.code, r.stderr).toBe(0);
    const before = new Set(activeProcesses);
    const overlay = await openOverlay(path, { width: 64, height: 64, fps: 25, frames: 250, alpha: false });
    const decoder = [...activeProcesses].filter((p) => !before.has(p));
    expect(decoder).toHaveLength(1);
    expect((await overlay.next())?.length).toBe(64 * 64 * 3);
    const closed = new Promise((res) => (decoder[0] as unknown as NodeJS.EventEmitter).once('close', res));
    overlay.close();
    await closed;
    expect(activeProcesses.has(decoder[0]!)).toBe(false);
  }, 60_000);

  it('fails with OverlayError on an overlay that is not a video, or has no video stream', async () => {
    const text = join(dir, 'not-a-video.mp4');
    await writeFile(text, 'not a video');
    const audio = join(dir, 'audio-only.mp4');
    const r = await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'aac', audio]);
    expect(r.code, r.stderr).toBe(0);
    for (const overlayPath of [text, audio]) {
      const err = await renderError(backend.run('animation.render', request({ name: 'overlay-broken', overlayPath })));
      expect(err.kind).toBe('OverlayError');
    }
  }, 60_000);

  it('stops the overlay decoder when the render is aborted', async () => {
    // A long overlay: its decoder is still running when the render is aborted.
    const path = join(dir, 'long-overlay-abort.mp4');
    const r = await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25:duration=60', '-pix_fmt', 'yuv420p', path]);
    expect(r.code, r.stderr).toBe(0);
    const decoders = () => readdirSync('/proc').filter((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        // This run's file only: a second test run on the machine decodes its own.
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(path);
      } catch {
        return false;
      }
    });
    const ac = new AbortController();
    let runningAtAbort = 0;
    const req = request({
      name: 'overlay-abort', overlayPath: path, signal: ac.signal,
      onProgress: (done) => {
        if (done < 20 || ac.signal.aborted) return;
        runningAtAbort = decoders().length;
        ac.abort();
      },
    });
    const err = await backend.run('animation.render', req).then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(runningAtAbort).toBe(1);
    // The render process stops its ffmpeg processes as it exits.
    for (let i = 0; i < 100 && decoders().length > 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect(decoders()).toEqual([]);
  }, 120_000);
});

/**
 * Share of pixels in a ring around a face (`from` to `to` face sizes from its centre) where
 * the frame has an edge the source does not have nearby: luma gradient above the source's
 * largest gradient in the 3x3 neighbourhood, by more than 12. A seam (a pasted patch that
 * does not line up) shows as such an edge; a continuous warp does not make one.
 */
function newEdgeShare(frame: Buffer, source: Buffer, width: number, height: number, face: number[], from: number, to: number): number {
  const luma = (b: Buffer) => {
    const l = new Float32Array(width * height);
    for (let i = 0; i < l.length; i++) l[i] = 0.299 * b[3 * i]! + 0.587 * b[3 * i + 1]! + 0.114 * b[3 * i + 2]!;
    return l;
  };
  const gradient = (l: Float32Array) => {
    const g = new Float32Array(width * height);
    for (let y = 1; y < height - 1; y++) {
      for (let x = 1; x < width - 1; x++) {
        const i = y * width + x;
        g[i] = Math.hypot(l[i + 1]! - l[i - 1]!, l[i + width]! - l[i - width]!) / 2;
      }
    }
    return g;
  };
  const gf = gradient(luma(frame)), gs = gradient(luma(source));
  const [l, t, r, b] = face as [number, number, number, number];
  const size = r - l, cx = (l + r) / 2, cy = (t + b) / 2;
  let ring = 0, edges = 0;
  for (let y = 2; y < height - 2; y++) {
    for (let x = 2; x < width - 2; x++) {
      const d = Math.hypot(x - cx, y - cy) / size;
      if (d < from || d > to) continue;
      ring++;
      let near = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) near = Math.max(near, gs[(y + dy) * width + x + dx]!);
      if (gf[y * width + x]! > near + 12) edges++;
    }
  }
  return edges / ring;
}

describe('stitch and the requested face', () => {
  const W = 880, H = 512;
  let source: Buffer;
  beforeAll(async () => {
    source = await sharp(twoFaces).removeAlpha().raw().toBuffer();
  });
  const bothFaces = () => rendered({ name: 'stitch-two', sourcePath: twoFaces, stitch: true, maxAnimatedFaces: 2 });
  const faceBox = (d: number[]): Box => ({ x: d[0]!, y: d[1]!, w: d[2]! - d[0]!, h: d[3]! - d[1]! });
  /** How much a face's box changes from the first frame to the busiest one. */
  const faceMotion = (file: string, d: number[]) => meanDiff(rgbFrame(file, 0, W, H), rgbFrame(file, BUSIEST, W, H), W, faceBox(d));

  it('animates both faces of a two-face picture with max_animated_faces 2, largest first', async () => {
    const { req, result } = await bothFaces();
    const facts = videoFacts(req.outputPath);
    expect(facts.decodeErrors).toBe('');
    expect([facts.width, facts.height]).toEqual([W, H]);
    expect(result.metadata.resolution).toEqual([String(W), String(H)]);
    const faces = result.metadata.faces;
    expect(faces).toHaveLength(2);
    expect(faces[0]!.size).toBeGreaterThan(faces[1]!.size);
    expect(faces[0]!.detection[2]).toBeLessThan(512);
    expect(faces[1]!.detection[0]).toBeGreaterThan(530);
    expect(result.faceIds).toEqual([0, 1]);
    for (const f of faces) expect(faceMotion(req.outputPath, f.detection)).toBeGreaterThan(3);
  }, 120_000);

  it('leaves the picture away from the faces as it was, with no seam around the animated region', async () => {
    const { req, result } = await bothFaces();
    const faces = result.metadata.faces.map((f) => f.detection);
    const farFromFaces = (x: number, y: number) => faces.every(([l, t, r, b]) => Math.hypot(x - (l! + r!) / 2, y - (t! + b!) / 2) > 1.6 * (r! - l!));
    for (const i of [0, BUSIEST]) {
      const frame = rgbFrame(req.outputPath, i, W, H);
      let sum = 0, n = 0;
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          if (!farFromFaces(x, y)) continue;
          const o = (y * W + x) * 3;
          sum += Math.abs(frame[o]! - source[o]!) + Math.abs(frame[o + 1]! - source[o + 1]!) + Math.abs(frame[o + 2]! - source[o + 2]!);
          n += 3;
        }
      }
      expect(n).toBeGreaterThan(W * H * 0.3);
      expect(sum / n, `frame ${i}`).toBeLessThan(2);
      // The ring where the moving head meets the fixed picture (the rig's outer ring).
      for (const face of faces) expect(newEdgeShare(frame, source, W, H, face, 0.7, 1.6), `frame ${i}`).toBeLessThan(0.001);
    }
    // The measure does see a seam: the square around the large face pasted back 3 px off.
    const pasted = Buffer.from(source);
    const [l, t, r, b] = faces[0]!;
    const side = Math.round(1.75 * (r! - l!)), left = Math.round((l! + r!) / 2 - side / 2), top = Math.max(0, Math.round((t! + b!) / 2 - side / 2));
    for (let y = top + 2; y < Math.min(H, top + side); y++) {
      for (let x = Math.max(3, left); x < Math.min(W, left + side); x++) source.copy(pasted, (y * W + x) * 3, ((y - 2) * W + x - 3) * 3, ((y - 2) * W + x - 2) * 3);
    }
    expect(newEdgeShare(pasted, source, W, H, faces[0]!, 0.7, 1.6)).toBeGreaterThan(0.005);
  }, 120_000);

  it('animates only the largest face with max_animated_faces 1', async () => {
    const { req, result } = await rendered({ name: 'stitch-one', sourcePath: twoFaces, stitch: true, maxAnimatedFaces: 1 });
    expect(result.faceIds).toEqual([0]);
    const [large, small] = result.metadata.faces;
    expect(faceMotion(req.outputPath, large!.detection)).toBeGreaterThan(3);
    expect(faceMotion(req.outputPath, small!.detection)).toBeLessThan(1.5);
  }, 120_000);

  it('animates the face of the requested face square, not the largest', async () => {
    const { result: found } = await bothFaces();
    const small = found.metadata.faces[1]!;
    const face = { size: small.size, top_left: small.top_left };
    const { req, result } = await rendered({ name: 'stitch-requested', sourcePath: twoFaces, stitch: true, maxAnimatedFaces: 1, face });
    expect(result.faceIds).toEqual([1]);
    expect(faceMotion(req.outputPath, small.detection)).toBeGreaterThan(3);
    expect(faceMotion(req.outputPath, found.metadata.faces[0]!.detection)).toBeLessThan(1.5);

    // Without stitch the crop is around the requested face: the grey copy.
    const crop = await rendered({ name: 'crop-requested', sourcePath: twoFaces, face });
    expect(crop.result.faceIds).toEqual([1]);
    const [r, g, b] = meanColour(rgbFrame(crop.req.outputPath, 0, 512, 512), 512, { x: 0, y: 0, w: 512, h: 512 });
    expect(Math.abs(r - g) + Math.abs(g - b)).toBeLessThan(3);
  }, 120_000);

  it('fails with FaceError when the requested face square holds no face', async () => {
    const err = await renderError(backend.run('animation.render', request({ name: 'face-elsewhere', sourcePath: twoFaces, face: { size: 60, top_left: [420, 420] } })));
    expect(err.kind).toBe('FaceError');
    expect(err.description).toContain('no face found inside the requested face square');
  }, 60_000);
});
