/** Sound for the speech tests, made here: Flite speech (src/voices) and ffmpeg's sine, noise and silence. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFliteProvider } from '../../src/voices/flite/index.ts';
import { int16Wav } from '../../src/speaking/speech.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';

export const statement = (name: string, passcode: string) =>
  `I, ${name}, agree that the owner of this account may use my face and my voice to create a digital avatar of me with mimic. I am recording this video of my own free will. My passcode is ${passcode}.`;

export async function workDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mimic-footage-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** `text` read by a Flite voice into a 16 kHz WAV; answers its length in seconds. */
export async function speak(text: string, file: string, voiceId = 'en-US-flite-rms'): Promise<number> {
  const flite = createFliteProvider();
  try {
    const s = await flite.synthesize({ text, voiceId });
    await writeFile(file, int16Wav(s.pcm, s.sampleRate));
    return s.durationMs / 1000;
  } finally {
    await flite.close?.();
  }
}

export async function ffmpeg(args: string[]): Promise<void> {
  const r = await runFfmpeg(['-y', '-loglevel', 'error', ...args]);
  if (r.code !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${r.stderr}`);
}

/** `input` followed by `seconds` of `tail` (an lavfi source: silence by default), as a 16 kHz mono WAV. */
export async function withTail(input: string, seconds: number, out: string, tail = 'anullsrc=r=16000:cl=mono'): Promise<void> {
  await ffmpeg(['-i', input, '-f', 'lavfi', '-t', String(seconds), '-i', tail, '-filter_complex', '[0:a]aresample=16000,aformat=channel_layouts=mono[a];[1:a]aresample=16000,aformat=channel_layouts=mono[b];[a][b]concat=n=2:v=0:a=1', '-ar', '16000', '-ac', '1', out]);
}
