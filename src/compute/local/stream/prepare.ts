/**
 * What a live stream animates: the picture decoded, the face found, the rig built, and (for a
 * background) the person's matte. Prepared once per (picture content, face, stitch) and kept,
 * so a second stream of the same presenter opens without searching faces again.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { RenderError } from '../../../errors.ts';
import type { FaceRequest } from '../../interface.ts';
import { detectFaces, downscale } from '../faces.ts';
import { decodeImage, evenSize } from '../image.ts';
import { cropCanvas, requestedFace } from '../render.ts';
import { buildRig, type Rig } from '../rig.ts';
import { segmentPerson } from '../matte.ts';
import type { RgbImage } from '../warp.ts';

/** A stitched stream is the whole picture, its longer side at most this (a live frame must render in 40 ms). */
export const STREAM_MAX_SIDE = 1280;

export interface PreparedFace {
  image: RgbImage;
  rig: Rig;
  /** The person's alpha over `image`, made on first use with a background. */
  matte?: Promise<Uint8Array>;
}

/** Prepared faces kept per key; the oldest go beyond this many. */
const CACHE_SIZE = 16;
const cache = new Map<string, Promise<PreparedFace>>();

async function prepareFace(path: string, face: FaceRequest | undefined, stitch: boolean): Promise<PreparedFace> {
  const source = await decodeImage(path);
  if (stitch) {
    const scale = Math.min(1, STREAM_MAX_SIDE / Math.max(source.width, source.height));
    const whole = evenSize(scale < 1 ? await downscale(source, scale) : source);
    // The face request is in the picture's own pixels; faces are searched on the frame as streamed.
    const want = face && scale < 1 ? { top_left: [face.top_left[0] * scale, face.top_left[1] * scale] as [number, number], size: face.size * scale } : face;
    const chosen = requestedFace(await detectFaces(whole), want);
    return { image: whole, rig: buildRig([chosen.mesh], whole.width, whole.height) };
  }
  const chosen = requestedFace(await detectFaces(source), face);
  const canvas = await cropCanvas(source, chosen);
  return { image: canvas.image, rig: buildRig(canvas.meshes, canvas.image.width, canvas.image.height) };
}

/** The prepared face of a picture file (cached by its content), or a RenderError that says why there is none. */
export async function preparedFace(path: string, face: FaceRequest | undefined, stitch: boolean): Promise<PreparedFace> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    throw new RenderError('SourceError', 'the source image could not be read');
  }
  const key = `${createHash('sha256').update(buf).digest('hex')}:${stitch ? 1 : 0}:${face ? `${face.top_left.join(',')},${face.size}` : ''}`;
  let p = cache.get(key);
  if (!p) {
    p = prepareFace(path, face, stitch);
    cache.set(key, p);
    // A failure is not kept: the next open tries again (and fails the same way, cheaply enough).
    p.catch(() => cache.delete(key));
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  } else {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, p);
  }
  return p;
}

/** The person's matte over a prepared face (computed once, then kept with it). */
export function matteOf(f: PreparedFace): Promise<Uint8Array> {
  f.matte ??= segmentPerson(f.image);
  return f.matte;
}
