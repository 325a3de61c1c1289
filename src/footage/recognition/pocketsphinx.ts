/**
 * English recognition with Debian's pocketsphinx (`pocketsphinx_continuous` and the
 * `pocketsphinx-en-us` model; scripts/ensure-pocketsphinx.mjs installs them), run as a child
 * process per file: free transcription with the model's general language model (keyword
 * spotting gives false alarms; src/footage/match.ts matches the words with tolerance).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SpeechRecogniser } from './interface.ts';

export const POCKETSPHINX_BIN = '/usr/bin/pocketsphinx_continuous';
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/** The files of a model directory as Debian lays them out. */
export const modelFiles = (modelDir: string) => ({
  hmm: join(modelDir, 'en-us'),
  lm: join(modelDir, 'en-us.lm.bin'),
  dict: join(modelDir, 'cmudict-en-us.dict'),
});

export interface PocketsphinxOptions {
  bin?: string;
  modelDir?: string;
  /** Kills a recognition that runs longer (default 10 minutes: about 0.2 x real time here, so far more than a consent video needs). */
  timeoutMs?: number;
}

/** The words of pocketsphinx_continuous's stdout: one hypothesis line per utterance; log lines (`INFO:` ...) dropped. */
export function parseHypotheses(stdout: string): string {
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^(INFO|WARN|WARNING|ERROR|FATAL|SYSTEM_ERROR)\b/.test(line) && !/^READY|^Listening/.test(line))
    .join(' ')
    .replace(/\(\d+\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function createPocketsphinx(opts: PocketsphinxOptions = {}): SpeechRecogniser {
  const bin = opts.bin ?? POCKETSPHINX_BIN;
  const files = modelFiles(opts.modelDir ?? POCKETSPHINX_MODEL_DIR);
  const timeoutMs = opts.timeoutMs ?? 600_000;
  return {
    name: 'pocketsphinx',
    languages: ['english'],
    transcribe(wavPath, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const args = ['-infile', wavPath, '-hmm', files.hmm, '-lm', files.lm, '-dict', files.dict, '-samprate', '16000', '-logfn', '/dev/null'];
        const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        let err = '';
        let timedOut = false;
        const timer = setTimeout(() => { timedOut = true; p.kill('SIGKILL'); }, timeoutMs);
        const onAbort = () => p.kill('SIGKILL');
        signal?.addEventListener('abort', onAbort, { once: true });
        const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
        p.stdout.on('data', (d: Buffer) => out.push(d));
        p.stderr.on('data', (d: Buffer) => { if (err.length < 4096) err += d.toString(); });
        p.on('error', (e) => { done(); reject(new Error(`pocketsphinx could not start (${bin}): ${e.message}`)); });
        p.on('close', (code) => {
          done();
          if (signal?.aborted) return reject(signal.reason);
          if (timedOut) return reject(new Error(`pocketsphinx took longer than ${timeoutMs} ms on ${wavPath}`));
          if (code !== 0) return reject(new Error(`pocketsphinx failed on ${wavPath} (exit ${code}): ${err.trim().split('\n').at(-1) ?? ''}`));
          resolve({ text: parseHypotheses(Buffer.concat(out).toString('utf8')) });
        });
      });
    },
  };
}
