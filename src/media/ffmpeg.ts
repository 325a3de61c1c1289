/** The ffmpeg executable of @ffmpeg-installer/ffmpeg, run as a subprocess: the one runner of the service (renders, probes, footage analysis). */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

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

/** stderr beyond this is cut to its last half: a long `-f null` pass prints progress all along, and the end is what is read. */
const STDERR_CAP = 2_000_000;

/**
 * Runs the bundled ffmpeg to completion, collecting stdout and stderr (its last MB once it
 * passes STDERR_CAP). An aborted `signal` kills it and rejects with the signal's reason;
 * `timeoutMs` (default 2 minutes) kills it and resolves with its exit.
 */
export function runFfmpeg(args: string[], opts: { input?: Buffer; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(opts.signal.reason);
    const p = track(spawn(FFMPEG_PATH, ['-hide_banner', '-nostdin', ...args], { stdio: ['pipe', 'pipe', 'pipe'] }));
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    const onAbort = () => p.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => { clearTimeout(timer); opts.signal?.removeEventListener('abort', onAbort); };
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.length > STDERR_CAP) err = err.slice(-STDERR_CAP / 2);
    });
    p.on('error', (e) => { done(); reject(e); });
    p.on('close', (code) => {
      done();
      if (opts.signal?.aborted) reject(opts.signal.reason);
      else resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
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
