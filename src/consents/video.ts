import { extname, join } from 'node:path';
import { inputFile, type InputFileDeps } from '../media/input-file.ts';
import { runFfmpeg } from '../media/ffmpeg.ts';
import type { FaceObservation } from '../footage/faces.ts';

/**
 * What the consent and avatar checks share: fetching the video, the failure that ends a
 * record with the check's name and measurement, whether a face looks at the camera, and stills.
 */

/** A check that did not pass: ends the record in `error` with this kind and description. */
export class CheckFailure extends Error {
  constructor(
    readonly kind: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'CheckFailure';
  }
}

const VIDEO_EXTENSIONS = new Set(['.mp4', '.mov', '.webm', '.mkv', '.m4v', '.mpeg', '.mpg']);

/** The video at `url` (https through the guarded client, or the owner's media store) as a local file. */
export async function fetchVideo(deps: InputFileDeps, input: { url: string; userId: string; workDir: string; maxBytes: number; what: string; kind: string }): Promise<string> {
  let ext = '.mp4';
  try {
    const e = extname(new URL(input.url).pathname).toLowerCase();
    if (VIDEO_EXTENSIONS.has(e)) ext = e;
  } catch {
    // A storage-scheme URL the WHATWG parser refuses keeps the default extension.
  }
  return inputFile(deps, {
    url: input.url, userId: input.userId, workDir: input.workDir, fileName: `source${ext}`, maxBytes: input.maxBytes,
    accept: (t) => t === '' || /^video\/|^application\/octet-stream|^binary\//i.test(t),
    missing: () => new CheckFailure(input.kind, `The ${input.what} no longer exists in your media store`),
    tooLarge: () => new CheckFailure(input.kind, `The ${input.what} is larger than the limit of ${input.maxBytes} bytes`),
    failed: (message) => new CheckFailure(input.kind, `Could not fetch the ${input.what}: ${message}`),
  });
}

/** The content type a stored video is served with. */
export const videoType = (path: string): string => (/\.webm$/i.test(path) ? 'video/webm' : /\.mov$/i.test(path) ? 'video/quicktime' : 'video/mp4');

/** Facing the camera: head turned and tilted within these (degrees). */
export const FACING = { maxYaw: 30, maxPitch: 25 } as const;
export const isFacing = (face: FaceObservation): boolean => Math.abs(face.yaw) <= FACING.maxYaw && Math.abs(face.pitch) <= FACING.maxPitch;

/** A JPEG still of `timeSec` of the video, `side` pixels on its larger side. */
export async function stillOf(video: string, timeSec: number, workDir: string, name: string, side = 512): Promise<string> {
  const out = join(workDir, name);
  const { code, stderr } = await runFfmpeg(
    ['-y', '-v', 'error', '-ss', timeSec.toFixed(3), '-i', video, '-frames:v', '1', '-vf', `scale='if(gt(iw,ih),min(${side},iw),-2)':'if(gt(iw,ih),-2,min(${side},ih))'`, '-q:v', '3', out],
    { timeoutMs: 60_000 },
  );
  if (code !== 0) throw new Error(`still of the video failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  return out;
}

export const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;
