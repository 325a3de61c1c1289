/**
 * Backgrounds: the person cut out of the source picture and shown on a colour, a picture, or
 * nothing (alpha). The matte comes from MediaPipe Selfie Segmentation (assets/models/, run by
 * human on the wasm backend), computed once per render on the still picture; each frame warps
 * it with the same triangles as the colour, so the cut-out follows the head exactly. Per
 * frame only a blend (or an interleave into rgba) is left to do.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { RenderError } from '../../errors.ts';
import type { BackgroundInput } from '../interface.ts';
import { mixInto, type Layer } from './compose.ts';
import { downscale, loadHuman, toTensor } from './faces.ts';
import type { RgbImage } from './warp.ts';

export const SELFIE_MODEL_PATH = fileURLToPath(new URL('../../../assets/models/selfie.json', import.meta.url));

/** The model sees 256x256; a larger picture is segmented at most this size and its matte scaled back. */
const SEGMENT_MAX_SIDE = 512;
/**
 * The model's soft probabilities are steepened between these levels (0..255) so that the
 * person is fully opaque and the room fully gone, then feathered by a small blur: an edge
 * about 1 % of the picture's side wide, never a hard cut.
 */
const MATTE_LOW = 70, MATTE_HIGH = 185;
const FEATHER_SHARE = 0.004;

/** The person's alpha over `img`, one byte a pixel (255 = the person), softened at its edge. */
export async function segmentPerson(img: RgbImage): Promise<Uint8Array> {
  const human = await loadHuman();
  const scale = Math.min(1, SEGMENT_MAX_SIDE / Math.max(img.width, img.height));
  const input = scale < 1 ? await downscale(img, scale) : img;
  const tensor = toTensor(human, input);
  let out;
  try {
    out = await human.segmentation(tensor, { segmentation: { enabled: true, modelPath: pathToFileURL(SELFIE_MODEL_PATH).href, mode: 'alpha' } });
  } finally {
    tensor.dispose();
  }
  if (!out) throw new Error('the person segmentation model could not run');
  let values: Int32Array | Float32Array;
  try {
    values = await out.data();
  } finally {
    out.dispose();
  }
  const steep = new Uint8Array(input.width * input.height);
  const span = MATTE_HIGH - MATTE_LOW;
  for (let i = 0; i < steep.length; i++) {
    const v = (values[i]! - MATTE_LOW) / span;
    steep[i] = v <= 0 ? 0 : v >= 1 ? 255 : Math.round(v * v * (3 - 2 * v) * 255);
  }
  const sigma = Math.max(0.5, FEATHER_SHARE * Math.max(img.width, img.height));
  const matte = await sharp(steep, { raw: { width: input.width, height: input.height, channels: 1 } })
    .resize(img.width, img.height, { fit: 'fill', kernel: 'cubic' })
    .blur(sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  return new Uint8Array(matte.buffer, matte.byteOffset, matte.length);
}

/** `#rrggbb` → [r, g, b]. */
export function parseColor(color: string): [number, number, number] {
  const m = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/.exec(color);
  if (!m) throw new RenderError('ConfigError', `the background colour ${JSON.stringify(color)} is not #rrggbb`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/**
 * The picture behind the person for a width x height result: a flat colour, or the image
 * scaled to cover the frame (centred, the overflow cut); undefined for a transparent one.
 */
export async function loadBackground(bg: BackgroundInput, width: number, height: number): Promise<Uint8Array | undefined> {
  if (bg.kind === 'transparent') return undefined;
  if (bg.kind === 'color') {
    const [r, g, b] = parseColor(bg.color);
    const data = new Uint8Array(width * height * 3);
    for (let o = 0; o < data.length; o += 3) { data[o] = r; data[o + 1] = g; data[o + 2] = b; }
    return data;
  }
  try {
    const data = await sharp(bg.path, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .flatten({ background: '#000000' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer();
    if (data.length !== width * height * 3) throw new Error('unexpected size');
    return new Uint8Array(data.buffer, data.byteOffset, data.length);
  } catch {
    throw new RenderError('BackgroundError', 'the background image could not be decoded (a png, jpg or webp of at most 50 megapixels expected)');
  }
}

/** The person (`frame`, alpha `matte`) over `background`, in place. */
export function overBackground(frame: RgbImage, matte: Uint8Array, background: Uint8Array): void {
  const fd = frame.data;
  for (let i = 0, o = 0; i < matte.length; i++, o += 3) {
    const a = matte[i]!;
    if (a === 255) continue;
    if (a === 0) {
      fd[o] = background[o]!; fd[o + 1] = background[o + 1]!; fd[o + 2] = background[o + 2]!;
      continue;
    }
    // The background under the person: mixing it in with 255 - a is the person over it with a.
    mixInto(fd, o, background, o, 255 - a);
  }
}

/** `frame` with `matte` as its alpha, into `rgba` (straight alpha, 4 bytes a pixel). */
export function withAlpha(frame: RgbImage, matte: Uint8Array, rgba: Uint8Array): void {
  const fd = frame.data;
  for (let i = 0, o = 0, q = 0; i < matte.length; i++, o += 3, q += 4) {
    rgba[q] = fd[o]!; rgba[q + 1] = fd[o + 1]!; rgba[q + 2] = fd[o + 2]!; rgba[q + 3] = matte[i]!;
  }
}

/** Lays `layer` over an rgba frame of width `W` with the "over" operator, alpha included (a logo on a transparent result). */
export function drawLayerRgba(rgba: Uint8Array, W: number, layer: Layer): void {
  const { data: ld, width: w, height: h, x: lx, y: ly } = layer;
  for (let row = 0; row < h; row++) {
    let o = ((ly + row) * W + lx) * 4;
    let i = row * w * 4;
    for (let col = 0; col < w; col++, o += 4, i += 4) {
      const la = ld[i + 3]!;
      if (la === 0) continue;
      const fa = rgba[o + 3]! * (255 - la) / 255;
      const out = la + fa;
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.round((ld[i + c]! * la + rgba[o + c]! * fa) / out);
      rgba[o + 3] = Math.round(out);
    }
  }
}
