/**
 * English recognition with Debian's pocketsphinx (`pocketsphinx_continuous` and the
 * `pocketsphinx-en-us` model; scripts/ensure-pocketsphinx.mjs installs them), run as a child
 * process per file: free transcription with the model's general language model (keyword
 * spotting gives false alarms; src/consents/match.ts matches the words with tolerance).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { slotGrammar, slotsHeard } from './grammar.ts';
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
  /** pocketsphinx_batch, for the grammar pass (listenFor); null: no grammar pass. */
  batchBin?: string | null;
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

export const POCKETSPHINX_BATCH_BIN = '/usr/bin/pocketsphinx_batch';

/** Runs a pocketsphinx binary; its stdout, or a rejection naming what went wrong. */
function run(bin: string, args: string[], what: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
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
      if (timedOut) return reject(new Error(`pocketsphinx took longer than ${timeoutMs} ms on ${what}`));
      if (code !== 0) return reject(new Error(`pocketsphinx failed on ${what} (exit ${code}): ${err.trim().split('\n').at(-1) ?? ''}`));
      resolve(Buffer.concat(out).toString('utf8'));
    });
  });
}

/** The words of a pocketsphinx_batch hypothesis line: `words ... (uttid score)`. */
export function parseBatchHypothesis(text: string): string {
  return text.split('\n')[0]!.replace(/\s*\([^()]*\)\s*$/, '').trim();
}

export function createPocketsphinx(opts: PocketsphinxOptions = {}): SpeechRecogniser {
  const bin = opts.bin ?? POCKETSPHINX_BIN;
  const batchBin = opts.batchBin === undefined ? POCKETSPHINX_BATCH_BIN : opts.batchBin;
  const files = modelFiles(opts.modelDir ?? POCKETSPHINX_MODEL_DIR);
  const timeoutMs = opts.timeoutMs ?? 600_000;
  return {
    name: 'pocketsphinx',
    languages: ['english'],
    async transcribe(wavPath, signal) {
      const args = ['-infile', wavPath, '-hmm', files.hmm, '-lm', files.lm, '-dict', files.dict, '-samprate', '16000', '-logfn', '/dev/null'];
      return { text: parseHypotheses(await run(bin, args, wavPath, timeoutMs, signal)) };
    },
    ...(batchBin ? { listenFor: listenWith(batchBin) } : {}),
  };

  function listenWith(batchBin: string): NonNullable<SpeechRecogniser['listenFor']> {
    return async (wavPath, expected, others, signal) => {
      // pocketsphinx_batch decodes the whole file as one utterance (pocketsphinx_continuous
      // cuts it at pauses, and each piece would have to be the whole statement).
      const g = slotGrammar(expected, others);
      const dir = await mkdtemp(join(tmpdir(), 'mimic-grammar-'));
      try {
        await copyFile(wavPath, join(dir, 'speech.wav'));
        await writeFile(join(dir, 'consent.gram'), g.jsgf);
        await writeFile(join(dir, 'consent.dict'), g.dict);
        await writeFile(join(dir, 'ctl'), 'speech\n');
        const hyp = join(dir, 'out.hyp');
        const decode = async (extra: string[]) => {
          await run(batchBin, ['-ctl', join(dir, 'ctl'), '-cepdir', dir, '-cepext', '.wav', '-adcin', 'yes', '-adchdr', '44', '-hmm', files.hmm,
            '-jsgf', join(dir, 'consent.gram'), '-dict', join(dir, 'consent.dict'), '-samprate', '16000', '-hyp', hyp, '-logfn', '/dev/null', ...extra], wavPath, timeoutMs, signal);
          return parseBatchHypothesis(await readFile(hyp, 'utf8').catch(() => ''));
        };
        // With filler words (silences, noises) between the words, some voices (espeak-ng's male)
        // end in no path through the grammar at all; without them they find one, while voices
        // that pause need the fillers: the second decode only when the first found nothing.
        const text = (await decode([])) || (await decode(['-fsgusefiller', 'no']));
        return { text, ...slotsHeard(g, text) };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };
  }
}
