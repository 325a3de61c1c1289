/**
 * The rules an animation's inputs must meet beyond the media rules (src/media/checks.ts): the
 * face square, the logo's placement in the result, and the bundled sample.
 */
import type { CreateAnimationBody } from './schemas.ts';
import { resultFrameOf } from '../compute/result-frame.ts';
import { readImageInfo, rejected, type ImageInfo, type ImageSize } from '../media/checks.ts';

/** Smallest face square the renderer can animate, in source pixels. */
export const MIN_FACE_SIDE = 16;
/** Share of the face square that must lie inside the picture (the renderer's overlap "no" or "partial"). */
export const MIN_FACE_INSIDE = 0.5;

/**
 * The bundled sample is the service's own input: only its size is read (the placement rules
 * need it), so an operator's limits never refuse a request for a file it did not send.
 */
export const inspectSample = (path: string): Promise<ImageInfo> => readImageInfo('source', path);

/**
 * The face square must be at least MIN_FACE_SIDE pixels, and (once the picture's size is
 * known) at least MIN_FACE_INSIDE of it must lie inside the picture.
 */
export function checkFace(face: CreateAnimationBody['face'], image: ImageSize | null): void {
  if (!face) return;
  const { size } = face;
  const [x, y] = face.top_left as [number, number];
  if (size < MIN_FACE_SIDE) {
    throw rejected('InvalidFaceError', 'face.size', `the face square is ${size} pixels; the minimum side is ${MIN_FACE_SIDE}`, {
      size,
      min_size: MIN_FACE_SIDE,
    });
  }
  if (!image) return;
  const overlap = (from: number, length: number) => Math.max(0, Math.min(from + size, length) - Math.max(from, 0));
  const inside = (overlap(x, image.width) * overlap(y, image.height)) / (size * size);
  const square = `the face square of ${size} pixels at [${x}, ${y}]`;
  const picture = `the ${image.width}x${image.height} image`;
  const measured = { size, x, y, width: image.width, height: image.height };
  if (inside === 0) throw rejected('InvalidFaceError', 'face', `${square} lies entirely outside ${picture}`, measured);
  if (inside < MIN_FACE_INSIDE) {
    const percent = Math.floor(inside * 100);
    throw rejected('InvalidFaceError', 'face', `only ${percent}% of ${square} lies inside ${picture}; at least ${MIN_FACE_INSIDE * 100}% must`, {
      ...measured,
      inside_percent: percent,
    });
  }
}

/** The result's frame (src/compute/result-frame.ts): with stitch it is known once the source is. */
export function resultFrame(stitch: boolean, source: ImageSize | null): ImageSize | null {
  if (stitch && !source) return null;
  return resultFrameOf(stitch, source ?? { width: 0, height: 0 });
}

/**
 * A custom logo must show at least one pixel of itself in the result. A negative position
 * counts back from the last pixel (-1 is the last column or row). Without the logo's size
 * only a position past the right or bottom edge is known to be outside.
 */
export function checkLogoPlacement(req: CreateAnimationBody, source: ImageSize | null, logo: ImageSize | null): void {
  const custom = req.config?.logo;
  if (typeof custom !== 'object') return;
  const frame = resultFrame(req.config?.stitch ?? false, source);
  if (!frame) return;
  const [x, y] = custom.position as [number, number];
  const left = x < 0 ? frame.width + x : x;
  const top = y < 0 ? frame.height + y : y;
  const outside =
    left >= frame.width || top >= frame.height || (logo !== null && (left + logo.width <= 0 || top + logo.height <= 0));
  if (!outside) return;
  const what = logo ? `the ${logo.width}x${logo.height} logo` : 'the logo';
  throw rejected('ConfigError', 'config.logo.position', `${what} at [${x}, ${y}] lies entirely outside the ${frame.width}x${frame.height} result`, {
    x,
    y,
    result_width: frame.width,
    result_height: frame.height,
    ...(logo ? { logo_width: logo.width, logo_height: logo.height } : {}),
  });
}
