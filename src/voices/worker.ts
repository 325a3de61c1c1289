/**
 * The voice worker thread: speaks synthesis jobs with the embedded engines, one at a time,
 * keeping one warm instance of each engine for the thread's life. Started by
 * src/voices/pool.ts (never imported by the main thread).
 *
 * In: { id, job: SynthesisJob, stop: Int32Array over a SharedArrayBuffer }. The pool sets
 * stop[0] to 1 to abandon the job; the engines look at it between chunks of audio.
 * Out: { id, ok: true, speech } with the PCM buffer transferred, or { id, ok: false, reason, message }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SpeechError } from './interface.ts';
import { composeSpeech, type Engine } from './compose.ts';
import { parseSsml, plainSegments } from './ssml.ts';
import { createEspeakEngine } from './espeak/engine.ts';
import { createFliteEngine } from './flite/engine.ts';
import type { SynthesisJob } from './pool.ts';

const WARM_UP_TEXT = 'Warming up the voice. This sentence is never heard.';

const engines = new Map<SynthesisJob['engine'], Promise<Engine>>();

function engine(kind: SynthesisJob['engine']): Promise<Engine> {
  let found = engines.get(kind);
  if (!found) {
    found = kind === 'espeak' ? createEspeakEngine().then(warmEspeak) : createFliteEngine().then(warmFlite);
    engines.set(kind, found);
  }
  return found;
}

/** The first two espeak syntheses pay seconds of wasm warm-up: pay them here, not in a job. */
function warmEspeak(espeak: Engine): Engine {
  for (let i = 0; i < 2; i++) espeak.speak('en-us', WARM_UP_TEXT, 1, () => false);
  return espeak;
}

/** Flite's first synthesis pays about 100 ms more than the next (the live stream's first sentence would wait for it). */
function warmFlite(flite: Engine): Engine {
  flite.speak('slt', 'Warming up.', 1, () => false);
  return flite;
}

async function handle(message: { id: number; job: SynthesisJob; stop: Int32Array }) {
  const { id, job, stop } = message;
  const stopped = () => Atomics.load(stop, 0) !== 0;
  try {
    const segments = job.ssml ? parseSsml(job.text, job.rate ?? 1) : plainSegments(job.text, job.rate ?? 1);
    const speech = composeSpeech(await engine(job.engine), job.voice, segments, stopped);
    parentPort!.postMessage({ id, ok: true, speech }, [speech.pcm.buffer as ArrayBuffer]);
  } catch (error) {
    const reason = error instanceof SpeechError ? error.reason : 'vendor';
    const text = error instanceof Error ? error.message : String(error);
    parentPort!.postMessage({ id, ok: false, reason, message: text });
  }
}

// One job at a time, in order: the pool sends a worker a job only when it is idle.
let chain: Promise<void> = Promise.resolve();
parentPort!.on('message', (message) => {
  chain = chain.then(() => handle(message));
});

if ((workerData as { warm?: boolean } | undefined)?.warm) void engine('espeak').then(() => engine('flite'));
