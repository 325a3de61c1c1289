/**
 * Backgrounds rendered for real by the local backend (src/compute/local/matte.ts): the person
 * segmented from a presenter picture, then shown on a colour, on a picture, or on nothing
 * (a webm or mov whose alpha is the matte), checked on the decoded frames.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundInput, ComputeBackend, RenderRequest } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { detectFaces } from '../../src/compute/local/faces.ts';
import { decodeImage } from '../../src/compute/local/image.ts';
import { segmentPerson } from '../../src/compute/local/matte.ts';
import { meanColour, renderError, renderRequest, rgbFrame, rgbaFrame } from '../helpers/video.ts';

const GRACE = join(import.meta.dirname, '../../assets/presenters/grace.jpg');
const SIDE = 512;
/** The crop's top corners show the room behind the presenter (a flag, a wall); its middle, her face. */
const TOP_LEFT = { x: 4, y: 4, w: 24, h: 24 };
const TOP_RIGHT = { x: SIDE - 28, y: 4, w: 24, h: 24 };
const FACE = { x: 246, y: 236, w: 20, h: 20 };
const FRAME = 12;

let dir: string;
let backend: ComputeBackend;
let speech: string;
let stripes: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-background-'));
  backend = createLocalBackend();
  speech = join(dir, 'speech.wav');
  expect((await runFfmpeg(['-y', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=1.2', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', speech])).code).toBe(0);
  // 1024x512: green | red | blue | green. Scaled to cover a 512x512 frame it keeps its middle half: red left, blue right.
  stripes = join(dir, 'stripes.png');
  const band = (colour: string, left: number) => ({ input: { create: { width: 256, height: 512, channels: 3 as const, background: colour } }, left, top: 0 });
  await sharp({ create: { width: 1024, height: 512, channels: 3, background: '#00ff00' } })
    .composite([band('#ff0000', 256), band('#0000ff', 512)])
    .png()
    .toFile(stripes);
});

afterAll(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (name: string, over: Partial<RenderRequest> = {}): RenderRequest =>
  renderRequest(dir, { name, sourcePath: GRACE, driver: { kind: 'speech', audioPath: speech, cues: [], seed: name }, mute: false, ...over });

const alphaOf = (rgba: Buffer, box: { x: number; y: number; w: number; h: number }): number => {
  let sum = 0;
  for (let y = box.y; y < box.y + box.h; y++) for (let x = box.x; x < box.x + box.w; x++) sum += rgba[(y * SIDE + x) * 4 + 3]!;
  return sum / (box.w * box.h);
};

const near = (got: number[], want: number[], tolerance: number) => got.every((v, i) => Math.abs(v - want[i]!) <= tolerance);

describe('person segmentation', () => {
  it('cuts the presenter out of her picture: the room is transparent, her face and body opaque, the edge soft', async () => {
    const img = await decodeImage(GRACE);
    const matte = await segmentPerson(img);
    expect(matte).toHaveLength(img.width * img.height);
    const at = (x: number, y: number) => matte[Math.round(y) * img.width + Math.round(x)]!;
    const [face] = await detectFaces(img);
    const [l, t, r, b] = face!.face.detection;
    // The flag top left, the wall top right: gone.
    expect(at(5, 5)).toBeLessThan(10);
    expect(at(img.width - 6, 5)).toBeLessThan(10);
    // The face and the jacket under it: kept.
    expect(at((l + r) / 2, (t + b) / 2)).toBeGreaterThan(245);
    expect(at((l + r) / 2, Math.min(img.height - 3, b + (b - t)))).toBeGreaterThan(245);
    // Along a row through the face, the matte rises from 0 to 255 and falls back, each edge over several pixels, not in one step.
    const row = Array.from({ length: img.width }, (_, x) => at(x, (t + b) / 2));
    const first = row.findIndex((v) => v > 245), last = row.findLastIndex((v) => v > 245);
    expect(first).toBeGreaterThan(0);
    expect(last).toBeLessThan(img.width - 1);
    expect(row.slice(0, first).filter((v) => v > 10).length).toBeGreaterThanOrEqual(4);
    expect(row.slice(last + 1).filter((v) => v > 10).length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});

describe('backgrounds in the rendered video', () => {
  it('shows the presenter on a colour: the corners take the colour, the face keeps its own', async () => {
    const req = request('colour', { background: { kind: 'color', color: '#00b140' } });
    await backend.run('animation.render', req);
    const frame = rgbFrame(req.outputPath, FRAME, SIDE, SIDE);
    expect(near(meanColour(frame, SIDE, TOP_LEFT), [0, 177, 64], 12)).toBe(true);
    expect(near(meanColour(frame, SIDE, TOP_RIGHT), [0, 177, 64], 12)).toBe(true);
    const face = meanColour(frame, SIDE, FACE);
    expect(face[0]).toBeGreaterThan(face[1] + 20);
  }, 120_000);

  it('shows the presenter on a picture scaled to cover the frame (its middle kept, not squeezed)', async () => {
    const req = request('picture', { background: { kind: 'image', path: stripes } });
    await backend.run('animation.render', req);
    const frame = rgbFrame(req.outputPath, FRAME, SIDE, SIDE);
    expect(near(meanColour(frame, SIDE, TOP_LEFT), [255, 0, 0], 20)).toBe(true);
    expect(near(meanColour(frame, SIDE, TOP_RIGHT), [0, 0, 255], 20)).toBe(true);
  }, 120_000);

  it('writes a transparent webm: VP9 with alpha (room ≈ 0, face ≈ 255), Opus sound, and an H.264 preview playlist', async () => {
    const previewDir = join(dir, 'preview-webm');
    await mkdir(previewDir);
    const req = request('clear', { resultFormat: 'webm', background: { kind: 'transparent' }, logo: { kind: 'default' }, previewDir });
    const result = await backend.run('animation.render', req);
    expect(result.metadata.resolution).toEqual(['512', '512']);
    expect(readFileSync(req.outputPath).toString('hex', 0, 4)).toBe('1a45dfa3');
    const info = (await runFfmpeg(['-i', req.outputPath])).stderr;
    expect(info).toMatch(/Video: vp9/);
    expect(info).toMatch(/alpha_mode\s*: 1/);
    expect(info).toMatch(/Audio: opus/);
    const rgba = rgbaFrame(req.outputPath, FRAME, SIDE, SIDE);
    expect(alphaOf(rgba, TOP_LEFT)).toBeLessThan(8);
    expect(alphaOf(rgba, TOP_RIGHT)).toBeLessThan(8);
    expect(alphaOf(rgba, FACE)).toBeGreaterThan(247);
    // The default logo (bottom right) stays visible on the transparent result.
    expect(alphaOf(rgba, { x: 400, y: 470, w: 60, h: 10 })).toBeGreaterThan(40);
    // The preview is H.264 segments (HLS has no VP9 alpha), the transparent part shown on black.
    const playlist = readFileSync(join(previewDir, 'index.m3u8'), 'utf8');
    expect(playlist).toContain('#EXT-X-ENDLIST');
    const segments = readdirSync(previewDir).filter((f) => f.endsWith('.ts'));
    expect(segments.length).toBeGreaterThan(0);
    const seg = join(previewDir, segments[0]!);
    expect((await runFfmpeg(['-i', seg])).stderr).toMatch(/Video: h264/);
    const shown = rgbFrame(seg, FRAME, SIDE, SIDE);
    expect(Math.max(...meanColour(shown, SIDE, TOP_LEFT))).toBeLessThan(20);
  }, 120_000);

  it('writes a transparent mov as ProRes 4444 with alpha', async () => {
    const req = request('clear-mov', { resultFormat: 'mov', background: { kind: 'transparent' } });
    await backend.run('animation.render', req);
    const info = (await runFfmpeg(['-i', req.outputPath])).stderr;
    expect(info).toMatch(/Video: prores \(4444\) \(ap4h/);
    const rgba = rgbaFrame(req.outputPath, FRAME, SIDE, SIDE);
    expect(alphaOf(rgba, TOP_LEFT)).toBeLessThan(8);
    expect(alphaOf(rgba, FACE)).toBeGreaterThan(247);
  }, 120_000);

  it('writes a webm without alpha on the presenter\'s own picture', async () => {
    const req = request('webm', { resultFormat: 'webm' });
    await backend.run('animation.render', req);
    const info = (await runFfmpeg(['-i', req.outputPath])).stderr;
    expect(info).toMatch(/Video: vp9/);
    expect(info).not.toMatch(/alpha_mode/);
    // Nothing is cut out: the room in the corner is there, opaque.
    expect(alphaOf(rgbaFrame(req.outputPath, FRAME, SIDE, SIDE), TOP_LEFT)).toBe(255);
    expect(Math.max(...meanColour(rgbFrame(req.outputPath, FRAME, SIDE, SIDE), SIDE, TOP_LEFT))).toBeGreaterThan(40);
  }, 120_000);

  it('refuses a transparent background in an mp4 (ConfigError) and an undecodable picture (BackgroundError)', async () => {
    const mp4 = await renderError(backend.run('animation.render', request('clear-mp4', { background: { kind: 'transparent' } })));
    expect(mp4.kind).toBe('ConfigError');
    expect(mp4.description).toMatch(/webm or mov/);
    const junk = join(dir, 'junk.png');
    await writeFile(junk, 'not a picture');
    const bad: BackgroundInput = { kind: 'image', path: junk };
    const err = await renderError(backend.run('animation.render', request('junk', { background: bad })));
    expect(err.kind).toBe('BackgroundError');
    expect(err.description).toMatch(/could not be decoded/);
  }, 60_000);
});
