/**
 * What every backend's result looks like, so that the API can check options against it
 * before a render and any worker (in any language) can produce it: the frame size, and
 * where the default logo goes. docs/compute-protocol.md states the same rules.
 */
import { fileURLToPath } from 'node:url';

/** Side of the square result without stitch: the face crop. */
export const CROP_RESULT_SIDE = 512;

export interface FrameSize {
  width: number;
  height: number;
}

/** The result's frame: the face crop, or with stitch the source picture cut to even sides (H.264 needs them). */
export const resultFrameOf = (stitch: boolean, source: FrameSize): FrameSize =>
  stitch ? { width: source.width & ~1, height: source.height & ~1 } : { width: CROP_RESULT_SIDE, height: CROP_RESULT_SIDE };

/** The project's default logo (a png with alpha), drawn when a request does not turn the logo off. */
export const DEFAULT_LOGO_PATH = fileURLToPath(new URL('../../assets/logo.png', import.meta.url));
/** The default logo's width and margin, as shares of the result's shorter side. */
const LOGO_WIDTH_SHARE = 0.22;
const LOGO_MARGIN_SHARE = 0.035;

/** Where the default logo goes on a result: bottom-right, its width 22 % of the shorter side, 3.5 % from the edges. */
export function defaultLogoBox(frame: FrameSize, aspect: number): FrameSize & { x: number; y: number } {
  const short = Math.min(frame.width, frame.height);
  const w = Math.max(16, Math.round(short * LOGO_WIDTH_SHARE));
  const h = Math.max(1, Math.round(w / aspect));
  const margin = Math.round(short * LOGO_MARGIN_SHARE);
  return { x: frame.width - margin - w, y: frame.height - margin - h, width: w, height: h };
}
