/** The ffmpeg executable of @ffmpeg-installer/ffmpeg, run as a subprocess. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
export const FFMPEG_PATH: string = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** ffmpeg processes running for a render, so a terminated render process can stop them. */
export const activeProcesses = new Set<{ kill(signal?: NodeJS.Signals): boolean }>();

/** Tracks `p` in `activeProcesses` until it exits. */
export function track<T extends { kill(signal?: NodeJS.Signals): boolean; once(event: 'close', cb: () => void): unknown }>(p: T): T {
  activeProcesses.add(p);
  p.once('close', () => activeProcesses.delete(p));
  return p;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs ffmpeg to completion, collecting stdout and stderr. */
export function runFfmpeg(args: string[], opts: { input?: Buffer; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const p = track(spawn(FFMPEG_PATH, ['-hide_banner', '-nostdin', ...args], { stdio: ['pipe', 'pipe', 'pipe'] }));
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', (e) => { clearTimeout(timer); reject(e); });
    p.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout: Buffer.concat(out), stderr: err }); });
    p.stdin.on('error', () => {});
    p.stdin.end(opts.input);
  });
}

export interface MediaInfo {
  durationSec?: number;
  video?: { width: number; height: number; fps?: number; codec: string };
  audio?: { codec: string };
  format?: string;
}

/** What `ffmpeg -i` says about a file (ffprobe is not shipped). */
export async function probe(path: string): Promise<MediaInfo> {
  const { stderr } = await runFfmpeg(['-i', path], { timeoutMs: 30_000 });
  return parseProbe(stderr);
}

export function parseProbe(text: string): MediaInfo {
  const info: MediaInfo = {};
  const fmt = /Input #0, ([^,]+(?:,[^,]+)*?), from/.exec(text);
  if (fmt) info.format = fmt[1];
  const dur = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(text);
  if (dur) info.durationSec = Number(dur[1]) * 3600 + Number(dur[2]) * 60 + Number(dur[3]);
  const v = /Stream #[^\n]*Video: (\w+)[^\n]*?, (\d{2,5})x(\d{2,5})[^\n]*/.exec(text);
  if (v) {
    const fps = /([\d.]+) fps/.exec(v[0]) ?? /([\d.]+) tbr/.exec(v[0]);
    info.video = { codec: v[1]!, width: Number(v[2]), height: Number(v[3]), fps: fps ? Number(fps[1]) : undefined };
  }
  const a = /Stream #[^\n]*Audio: (\w+)/.exec(text);
  if (a) info.audio = { codec: a[1]! };
  return info;
}

export interface EncoderOptions {
  width: number;
  height: number;
  fps: number;
  format: 'mp4' | 'mov';
  outputPath: string;
  /** A file whose first audio stream becomes the result's sound (AAC). */
  audioPath?: string;
  /** Length of the video in seconds, to cut the audio to. */
  durationSec: number;
  /**
   * Also write the video as it is encoded to an HLS event playlist here (`index.m3u8`,
   * one-second `seg%03d.ts` segments), so it can be watched while it renders.
   */
  previewDir?: string;
}

/** Starts an H.264 encoder that reads raw rgb24 frames on stdin. */
export function startEncoder(o: EncoderOptions): ChildProcessByStdio<Writable, null, Readable> {
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps), '-i', 'pipe:0',
  ];
  if (o.audioPath) args.push('-t', o.durationSec.toFixed(3), '-i', o.audioPath, '-map', '0:v:0', '-map', '1:a:0');
  // The tee muxer selects no stream by itself.
  else args.push('-map', '0:v:0');
  args.push('-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-threads', '2');
  if (o.audioPath) args.push('-c:a', 'aac', '-b:a', '128k', '-ac', '2');
  else args.push('-an');
  if (o.previewDir) {
    // One encode, two muxers: the result file and the growing playlist (a keyframe every second to cut segments at).
    const escape = (path: string) => path.replace(/[\\|[\]:]/g, (c) => `\\${c}`);
    const hls = `hls_time=1:hls_list_size=0:hls_playlist_type=event:hls_segment_filename=${escape(join(o.previewDir, 'seg%03d.ts'))}`;
    args.push('-g', String(Math.max(1, Math.round(o.fps))), '-flags', '+global_header', '-f', 'tee',
      `[f=${o.format}:movflags=+faststart]${escape(o.outputPath)}|[f=hls:${hls}]${escape(join(o.previewDir, 'index.m3u8'))}`);
  } else {
    args.push('-movflags', '+faststart', '-f', o.format, o.outputPath);
  }
  return track(spawn(FFMPEG_PATH, args, { stdio: ['pipe', 'ignore', 'pipe'] }));
}
