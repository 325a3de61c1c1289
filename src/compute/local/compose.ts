/**
 * Layers composited over the animated frames: the logo (a small rectangle, blended with its
 * alpha) and the frames of an overlay video (the whole frame, with alpha or screen-blended).
 * Layers are prepared once per render; per frame only their pixels are touched.
 */
import sharp from 'sharp';
import { RenderError } from '../../errors.ts';
import type { LogoInput } from '../interface.ts';
import { DEFAULT_LOGO_PATH, defaultLogoBox } from '../result-frame.ts';
import type { RgbImage } from './warp.ts';

/** An rgba picture (straight alpha) whose top-left corner sits at (x, y) of the frame, inside it. */
export interface Layer {
  x: number;
  y: number;
  width: number;
  height: number;
  data: Uint8Array;
}


interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

async function decodeRgba(input: string, resizeWidth?: number): Promise<Rgba> {
  let img = sharp(input, { limitInputPixels: 50_000_000 }).rotate();
  if (resizeWidth) img = img.resize({ width: resizeWidth, kernel: 'lanczos3' });
  const { data, info } = await img.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`unexpected channel count ${info.channels}`);
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** `pic` placed at (x, y) and cut to the frame; undefined when no pixel of it is inside. */
export function clipLayer(pic: Rgba, x: number, y: number, frameWidth: number, frameHeight: number): Layer | undefined {
  const left = Math.max(0, x), top = Math.max(0, y);
  const right = Math.min(frameWidth, x + pic.width), bottom = Math.min(frameHeight, y + pic.height);
  if (right <= left || bottom <= top) return undefined;
  const width = right - left, height = bottom - top;
  const data = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((top - y + row) * pic.width + (left - x)) * 4;
    data.set(pic.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { x: left, y: top, width, height, data };
}

/** A negative position counts back from the last pixel: -1 is the last column (or row). */
export const resolvePosition = (p: number, size: number): number => (p < 0 ? size + p : p);

/**
 * The logo layer of a width x height result, or undefined for `none`. The picture is
 * decoded (and the default logo scaled) here, once per render.
 */
export async function loadLogo(logo: LogoInput, width: number, height: number): Promise<Layer | undefined> {
  if (logo.kind === 'none') return undefined;
  if (logo.kind === 'default') {
    const meta = await sharp(DEFAULT_LOGO_PATH).metadata();
    const box = defaultLogoBox({ width, height }, (meta.width ?? 1) / (meta.height ?? 1));
    const pic = await decodeRgba(DEFAULT_LOGO_PATH, box.width);
    return clipLayer(pic, box.x, box.y, width, height);
  }
  let pic: Rgba;
  try {
    pic = await decodeRgba(logo.path);
  } catch {
    throw new RenderError('LogoError', 'the logo image could not be decoded (a png, jpg or webp of at most 50 megapixels expected)');
  }
  const [px, py] = logo.position;
  const x = resolvePosition(px, width), y = resolvePosition(py, height);
  const layer = clipLayer(pic, x, y, width, height);
  if (!layer) {
    throw new RenderError(
      'LogoError',
      `the ${pic.width}x${pic.height} logo at position [${px}, ${py}] (top-left corner at [${x}, ${y}]) lies entirely outside the ${width}x${height} result`,
    );
  }
  return layer;
}

/**
 * Blends the rgb pixel of `src` at `i` into `dst` at `o` with alpha `a` (1..254):
 * (src * a + dst * (255 - a)) / 255, rounded, as (x + 128 + ((x + 128) >> 8)) >> 8.
 */
export function mixInto(dst: Uint8Array, o: number, src: Uint8Array, i: number, a: number): void {
  const b = 255 - a;
  let x = src[i]! * a + dst[o]! * b + 128;
  dst[o] = (x + (x >> 8)) >> 8;
  x = src[i + 1]! * a + dst[o + 1]! * b + 128;
  dst[o + 1] = (x + (x >> 8)) >> 8;
  x = src[i + 2]! * a + dst[o + 2]! * b + 128;
  dst[o + 2] = (x + (x >> 8)) >> 8;
}

/** Blends `layer` over `frame` with the layer's alpha. */
export function drawLayer(frame: RgbImage, layer: Layer): void {
  const fd = frame.data, W = frame.width;
  const { data: ld, width: w, height: h, x: lx, y: ly } = layer;
  for (let row = 0; row < h; row++) {
    let o = ((ly + row) * W + lx) * 3;
    let i = row * w * 4;
    for (let col = 0; col < w; col++, o += 3, i += 4) {
      const a = ld[i + 3]!;
      if (a === 0) continue;
      if (a === 255) {
        fd[o] = ld[i]!; fd[o + 1] = ld[i + 1]!; fd[o + 2] = ld[i + 2]!;
        continue;
      }
      mixInto(fd, o, ld, i, a);
    }
  }
}

/** SCREEN[(a << 8) | b] = 255 - (255 - a)(255 - b) / 255, rounded: one lookup a channel. */
const SCREEN = (() => {
  const t = new Uint8Array(65536);
  for (let a = 0; a < 256; a++) for (let b = 0; b < 256; b++) t[(a << 8) | b] = 255 - Math.round(((255 - a) * (255 - b)) / 255);
  return t;
})();

/** Screen blend of an rgb picture of the frame's size: black leaves the frame as it is, light adds light. */
export function screenBlend(frame: RgbImage, over: Uint8Array): void {
  const fd = frame.data, n = fd.length;
  for (let o = 0; o < n; o += 3) {
    const r = over[o]!, g = over[o + 1]!, b = over[o + 2]!;
    if ((r | g | b) === 0) continue;
    fd[o] = SCREEN[(r << 8) | fd[o]!]!;
    fd[o + 1] = SCREEN[(g << 8) | fd[o + 1]!]!;
    fd[o + 2] = SCREEN[(b << 8) | fd[o + 2]!]!;
  }
}
