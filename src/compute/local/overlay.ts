/**
 * The overlay video: decoded by ffmpeg as raw frames already scaled to the result's size and
 * resampled to its fps, read one frame at a time as the render needs them (the pipe holds
 * back ffmpeg), so a long overlay never sits in memory.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { RenderError } from '../../errors.ts';
import { FFMPEG_PATH, runFfmpeg, track } from '../../media/ffmpeg.ts';

/** Pixel formats with an alpha channel, as `ffmpeg -i` names them. */
const ALPHA_PIXEL_FORMAT = /^(yuva|ayuv|vuya|rgba|bgra|argb|abgr|gbrap|ya\d)/;

/** The pixel format of the first video stream in `ffmpeg -i` output, or undefined without one. */
export function videoPixelFormat(probeText: string): string | undefined {
  const line = /Stream #[^\n]*?Video: ([^\n]*)/.exec(probeText)?.[1];
  if (line === undefined) return undefined;
  // The fields are comma separated; commas inside parentheses belong to a field.
  const fields: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) { fields.push(line.slice(start, i).trim()); start = i + 1; }
  }
  fields.push(line.slice(start).trim());
  return /^\w+/.exec(fields[1] ?? '')?.[0] ?? '';
}

export const hasAlpha = (pixelFormat: string): boolean => ALPHA_PIXEL_FORMAT.test(pixelFormat);

/** Whether the overlay carries alpha; fails with OverlayError when it has no readable video stream. */
export async function probeOverlay(path: string): Promise<{ alpha: boolean }> {
  const { stderr } = await runFfmpeg(['-i', path], { timeoutMs: 30_000 });
  const format = videoPixelFormat(stderr);
  if (format === undefined) throw new RenderError('OverlayError', 'the overlay is not a video ffmpeg can read (no video stream found)');
  return { alpha: hasAlpha(format) };
}

export interface OverlayFrames {
  /** Frames are rgba when true, rgb otherwise. */
  readonly alpha: boolean;
  /** The next frame (valid until the next call), or undefined once the overlay has ended. */
  next(): Promise<Uint8Array | undefined>;
  /** Stops the decoder (a longer overlay is cut). */
  close(): void;
}

/** Cuts a byte stream into frames of `size` bytes, reusing one buffer. */
async function* rawFrames(stream: Readable, size: number): AsyncGenerator<Uint8Array> {
  const frame = Buffer.allocUnsafe(size);
  let filled = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let at = 0; at < chunk.length;) {
      const n = Math.min(size - filled, chunk.length - at);
      chunk.copy(frame, filled, at, at + n);
      filled += n;
      at += n;
      if (filled === size) {
        yield frame;
        filled = 0;
      }
    }
  }
}

export interface OverlayOptions {
  width: number;
  height: number;
  fps: number;
  /** Frames of the result: the overlay is cut there. */
  frames: number;
  alpha: boolean;
}

/**
 * Starts decoding the overlay and reads its first frame, so an overlay that does not decode
 * fails (OverlayError) before any frame is encoded.
 */
export async function openOverlay(path: string, o: OverlayOptions): Promise<OverlayFrames> {
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-i', path, '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', `fps=${o.fps},scale=${o.width}:${o.height}:flags=bilinear`, '-frames:v', String(o.frames),
    '-f', 'rawvideo', '-pix_fmt', o.alpha ? 'rgba' : 'rgb24', 'pipe:1',
  ];
  const proc = track(spawn(FFMPEG_PATH, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<number | null>((resolve) => {
    proc.on('error', (e) => { stderr += e.message; resolve(null); });
    proc.on('close', (code) => resolve(code));
  });
  const frames = rawFrames(proc.stdout, o.width * o.height * (o.alpha ? 4 : 3));
  let count = 0, ended = false;

  const read = async (): Promise<Uint8Array | undefined> => {
    if (ended) return undefined;
    const r = await frames.next();
    if (!r.done) {
      count++;
      return r.value;
    }
    ended = true;
    const code = await exited;
    const reason = stderr.trim().split('\n').at(-1) ?? '';
    if (code !== 0) {
      throw new RenderError('OverlayError', `the overlay video could not be decoded${count ? ` after ${count} frames` : ''}: ${reason}`);
    }
    if (count === 0) throw new RenderError('OverlayError', 'the overlay video has no frames');
    return undefined;
  };
  const close = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    void frames.return(undefined).catch(() => {});
  };

  let first: Uint8Array | undefined;
  try {
    first = await read();
  } catch (err) {
    close();
    throw err;
  }
  let pending = true;
  return {
    alpha: o.alpha,
    next: async () => {
      if (!pending) return read();
      pending = false;
      return first;
    },
    close,
  };
}
