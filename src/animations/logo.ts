import { readFileSync } from 'node:fs';
import { DEFAULT_LOGO_PATH, defaultLogoBox } from '../compute/result-frame.ts';
import type { ImageSize } from '../media/checks.ts';

/** Where each user's copy of the default logo lives in their media store (its signed URL is shown on the record). */
export const DEFAULT_LOGO_KEY = 'samples/logo.png';
export { DEFAULT_LOGO_PATH };

/** The default logo's sides, read once from its PNG header (IHDR: width and height at bytes 16 and 20). */
const header = readFileSync(DEFAULT_LOGO_PATH).subarray(0, 24);
const aspect = header.readUInt32BE(16) / header.readUInt32BE(20);

/** The top-left corner where the renderer draws the default logo on a result of this frame. */
export function defaultLogoPosition(frame: ImageSize): [number, number] {
  const box = defaultLogoBox(frame, aspect);
  return [box.x, box.y];
}
