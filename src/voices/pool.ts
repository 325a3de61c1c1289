/**
 * A small pool of worker threads for the embedded voices, so synthesis never blocks the
 * main event loop. Each worker keeps one warm espeak-ng and one Flite instance.
 *
 * - `size` workers (default 1), started on first use (or by `warm()`).
 * - A bounded queue (`maxQueue`, default 64): beyond it `run` fails with VoicePoolFull at once.
 * - AbortSignal: a queued job that is aborted never runs; a running one is asked to stop
 *   (a shared flag the engines read between chunks of audio) and its result is dropped.
 * - `close()` rejects what is queued or running and ends the threads, then removes the Flite
 *   scratch folders of threads it ended mid-synthesis; the first pool of a process removes
 *   those of dead processes (src/voices/flite/scratch.ts).
 *
 * The worker is TypeScript (src/voices/worker.ts). It is loaded through tsx's `tsImport`
 * from a tiny CommonJS bootstrap, which works the same whether the service runs with
 * `node --import tsx` or under vitest (where the parent has no tsx loader of its own).
 * The worker runs with `--disable-warning=ExperimentalWarning`: Node 20 warns once per
 * thread that `node:wasi` (Flite) is experimental, and the service's output should not carry
 * that line on every start; only that thread's experimental warnings are silenced.
 */
import { Worker } from 'node:worker_threads';
import { removeFliteScratch } from './flite/scratch.ts';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { SpeechError } from './interface.ts';
import type { ComposedSpeech } from './compose.ts';

/** What a worker speaks: an engine, the engine's own voice name, and the request. */
export interface SynthesisJob {
  engine: 'espeak' | 'flite';
  voice: string;
  text: string;
  ssml?: boolean;
  rate?: number;
}

export interface VoicePoolOptions {
  /** Worker threads (default 1). */
  size?: number;
  /** Jobs that may wait for a worker (default 64). */
  maxQueue?: number;
  /** Warm espeak-ng up when a worker starts (default true). */
  warm?: boolean;
}

/** The queue is full: try again later (a 503 / retry for the caller, not the client's fault). */
export class VoicePoolFull extends Error {
  constructor(limit: number) {
    super(`the voice queue is full (${limit} waiting)`);
    this.name = 'VoicePoolFull';
  }
}

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsxApi).then(({ tsImport }) => tsImport(workerData.entry, workerData.tsxApi));
`;

/**
 * tsx's ESM API (`tsImport`). Its CommonJS build (what require.resolve finds) cannot load
 * from an eval'd worker, and `--import tsx` in a worker's execArgv does not reach an
 * eval'd or .ts entry on Node 20, so the worker imports the ESM build by path.
 */
function tsxEsmApi(): string {
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(join(dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
}

interface Pending {
  job: SynthesisJob;
  resolve(speech: ComposedSpeech): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  stop: Int32Array;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  running?: { id: number; pending: Pending };
}

const aborted = () => new SpeechError('aborted', 'the synthesis was aborted');

/** Scratch folders of dead processes are removed once per process, when its first pool is made. */
let sweptAtStart = false;

export class VoicePool {
  readonly size: number;
  readonly maxQueue: number;
  private readonly warmOnStart: boolean;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private started = 0;
  private closed = false;

  constructor(options: VoicePoolOptions = {}) {
    if (!sweptAtStart) {
      sweptAtStart = true;
      removeFliteScratch();
    }
    this.size = Math.max(1, Math.floor(options.size ?? 1));
    this.maxQueue = Math.max(0, Math.floor(options.maxQueue ?? 64));
    this.warmOnStart = options.warm ?? true;
  }

  /** Starts every worker now (they warm up in the background). */
  warm(): void {
    while (!this.closed && this.slots.length < this.size) this.spawn();
  }

  /** Jobs waiting, jobs on a worker now, and jobs ever handed to a worker (for metrics and tests). */
  stats(): { queued: number; running: number; started: number } {
    return { queued: this.queue.length, running: this.slots.filter((s) => s.running).length, started: this.started };
  }

  run(job: SynthesisJob, signal?: AbortSignal): Promise<ComposedSpeech> {
    if (this.closed) return Promise.reject(new SpeechError('aborted', 'the voice pool is closed'));
    if (signal?.aborted) return Promise.reject(aborted());
    const idle = this.slots.some((s) => !s.running) || this.slots.length < this.size;
    if (!idle && this.queue.length >= this.maxQueue) return Promise.reject(new VoicePoolFull(this.maxQueue));
    return new Promise<ComposedSpeech>((resolve, reject) => {
      const pending: Pending = { job, resolve, reject, signal, stop: new Int32Array(new SharedArrayBuffer(4)), settled: false };
      if (signal) {
        pending.onAbort = () => {
          Atomics.store(pending.stop, 0, 1);
          const at = this.queue.indexOf(pending);
          if (at >= 0) this.queue.splice(at, 1);
          this.settle(pending, aborted());
        };
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.queue.push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.queue.splice(0)) this.settle(pending, new SpeechError('aborted', 'the voice pool is closed'));
    const slots = this.slots.splice(0);
    for (const slot of slots) if (slot.running) this.settle(slot.running.pending, new SpeechError('aborted', 'the voice pool is closed'));
    const threads = slots.map((slot) => slot.worker.threadId);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
    removeFliteScratch(threads);
  }

  private settle(pending: Pending, outcome: ComposedSpeech | Error): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      execArgv: [...process.execArgv, '--disable-warning=ExperimentalWarning'],
      workerData: {
        tsxApi: tsxEsmApi(),
        entry: new URL('./worker.ts', import.meta.url).href,
        warm: this.warmOnStart,
      },
    });
    const slot: Slot = { worker };
    worker.unref();
    worker.on('message', (message: { id: number; ok: boolean; speech?: ComposedSpeech; reason?: SpeechError['reason']; message?: string }) => {
      const running = slot.running;
      if (!running || running.id !== message.id) return;
      slot.running = undefined;
      worker.unref();
      if (message.ok) this.settle(running.pending, message.speech!);
      else this.settle(running.pending, new SpeechError(message.reason ?? 'vendor', message.message ?? 'the synthesis failed'));
      this.dispatch();
    });
    const fail = (error: Error) => {
      const at = this.slots.indexOf(slot);
      if (at < 0) return; // closed, or already handled
      this.slots.splice(at, 1);
      if (slot.running) this.settle(slot.running.pending, new SpeechError('vendor', `the voice worker stopped: ${error.message}`));
      this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private dispatch(): void {
    while (!this.closed && this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.running) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const pending = this.queue.shift()!;
      const id = this.nextId++;
      slot.running = { id, pending };
      this.started++;
      slot.worker.ref();
      slot.worker.postMessage({ id, job: pending.job, stop: pending.stop });
    }
  }
}
