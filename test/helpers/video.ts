/** ffmpeg-based checks of rendered videos, shared by the compute and end-to-end tests. */
import { spawnSync } from 'node:child_process';
import { openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import type { RenderRequest } from '../../src/compute/interface.ts';
import { RenderError } from '../../src/errors.ts';
import { rejectionOf } from './rejection.ts';

export const SAMPLE_PORTRAIT = join(import.meta.dirname, '../../assets/sample-source.png');

/**
 * A render request for the local backend: a muted mp4 crop of the sample portrait by
 * `fun/driver-01`, without logo, written to `dir/<name>.<format>`; `over` replaces any of it.
 */
export function renderRequest(dir: string, over: Partial<RenderRequest> & { name: string }): RenderRequest {
  return {
    jobId: over.name,
    sourcePath: SAMPLE_PORTRAIT,
    driver: { kind: 'bank', category: 'fun', name: 'driver-01' },
    resultFormat: 'mp4',
    mute: true,
    stitch: false,
    maxAnimatedFaces: 1,
    logo: { kind: 'none' },
    outputPath: join(dir, `${over.name}.${over.resultFormat ?? 'mp4'}`),
    workDir: dir,
    signal: new AbortController().signal,
    ...over,
  };
}

/** The RenderError `p` rejects with (the test fails when it resolves or rejects otherwise). */
export const renderError = (p: Promise<unknown>): Promise<RenderError> => rejectionOf(p, RenderError);

export interface VideoFacts {
  /** The ftyp major brand: 'isom' for mp4, 'qt  ' for QuickTime mov. */
  brand: string;
  width: number;
  height: number;
  hasVideo: boolean;
  hasAudio: boolean;
  frames: number;
  /** Container duration from `ffmpeg -i`, seconds. */
  durationSec: number;
  fps: number;
  decodeErrors: string;
}

export function ftypBrand(file: string): string {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(12);
  readSync(fd, buf, 0, 12, 0);
  closeSync(fd);
  return buf.subarray(4, 8).toString('latin1') === 'ftyp' ? buf.subarray(8, 12).toString('latin1') : '';
}

export function videoFacts(file: string): VideoFacts {
  const info = spawnSync(ffmpeg.path, ['-hide_banner', '-i', file], { encoding: 'utf8' }).stderr;
  const size = /Video: h264[^\n]*?, (\d{2,5})x(\d{2,5})/.exec(info);
  const duration = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(info);
  const fps = /Video: h264[^\n]*?, ([\d.]+) fps/.exec(info);
  // Decode every frame, tiny, and count them: also proves the stream decodes cleanly.
  const decode = spawnSync(
    ffmpeg.path,
    ['-hide_banner', '-v', 'error', '-i', file, '-map', '0:v:0', '-vf', 'scale=8:8', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return {
    brand: ftypBrand(file),
    width: size ? Number(size[1]) : 0,
    height: size ? Number(size[2]) : 0,
    hasVideo: /Stream #\S+.*Video: h264/.test(info),
    hasAudio: /Stream #\S+.*Audio:/.test(info),
    frames: (decode.stdout as Buffer).length / 64,
    durationSec: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : 0,
    fps: fps ? Number(fps[1]) : 0,
    decodeErrors: decode.status === 0 ? decode.stderr.toString() : `exit ${decode.status}: ${decode.stderr}`,
  };
}

/** Frame `index` as raw rgb24 bytes. */
export const rgbFrame = (file: string, index: number, width: number, height: number): Buffer => rawFrame(file, index, width, height, 'rgb24');

/**
 * Frame `index` as raw rgba bytes, alpha included. A webm is read with libvpx: ffmpeg's own VP9
 * decoder drops the alpha plane (every pixel would read as opaque).
 */
export const rgbaFrame = (file: string, index: number, width: number, height: number): Buffer => rawFrame(file, index, width, height, 'rgba');

function rawFrame(file: string, index: number, width: number, height: number, pixFmt: 'rgb24' | 'rgba'): Buffer {
  const decoder = pixFmt === 'rgba' && file.endsWith('.webm') ? ['-c:v', 'libvpx-vp9'] : [];
  const res = spawnSync(
    ffmpeg.path,
    ['-v', 'error', ...decoder, '-i', file, '-vf', `select=eq(n\\,${index})`, '-vsync', '0', '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const buf = res.stdout as Buffer;
  const channels = pixFmt === 'rgba' ? 4 : 3;
  if (buf.length !== width * height * channels) throw new Error(`frame ${index}: got ${buf.length} bytes`);
  return buf;
}

/** Mean absolute difference of two rgb frames inside a box, per channel value. */
export function meanDiff(a: Buffer, b: Buffer, width: number, box: { x: number; y: number; w: number; h: number }): number {
  let sum = 0;
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) {
      const o = (y * width + x) * 3;
      sum += Math.abs(a[o]! - b[o]!) + Math.abs(a[o + 1]! - b[o + 1]!) + Math.abs(a[o + 2]! - b[o + 2]!);
    }
  }
  return sum / (box.w * box.h * 3);
}

/**
 * Encodes raw frames (rgb24 or rgba, `width` x `height`) into a video file with ffmpeg;
 * `codec` holds the output options, for example `['-c:v', 'qtrle']`.
 */
export function encodeFrames(
  file: string,
  frames: Uint8Array[],
  o: { width: number; height: number; fps: number; pixFmt: 'rgb24' | 'rgba'; codec: string[] },
): void {
  const res = spawnSync(
    ffmpeg.path,
    ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', o.pixFmt, '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps), '-i', 'pipe:0', ...o.codec, file],
    { input: Buffer.concat(frames), maxBuffer: 16 * 1024 * 1024 },
  );
  if (res.status !== 0) throw new Error(`encoding ${file} failed: ${res.stderr}`);
}

/** Mean rgb of a box of an rgb frame. */
export function meanColour(frame: Buffer, width: number, box: { x: number; y: number; w: number; h: number }): [number, number, number] {
  const sum = [0, 0, 0];
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) {
      const o = (y * width + x) * 3;
      sum[0]! += frame[o]!; sum[1]! += frame[o + 1]!; sum[2]! += frame[o + 2]!;
    }
  }
  const n = box.w * box.h;
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}
