/**
 * How often the consent `words` step verifies a correct reading and refuses a wrong one, over
 * random names and passcodes read by the embedded voices (Flite and espeak-ng), before the
 * grammar pass (free transcription only) and after (free transcription, then a listen for the
 * name and the passcode in their slots: src/consents/words.ts). docs/speech-checks.md has the
 * figures.
 *
 *   node --import tsx bench/consent-recognition.ts [--trials 24] [--seed N] [--voices id,id]
 *
 * Each trial draws a name (given name and surname from NAMES below, none of them in the
 * grammar's list of common names) and a passcode, picks the next voice, and reads: (a) the
 * statement as it should be, (b) with another name, (c) with another passcode, (d) another
 * sentence (in the first trial of each voice). Outcomes as the service decides them: verified (no word missed), review (one
 * missed), refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFliteProvider } from '../src/voices/flite/index.ts';
import { createEspeakProvider } from '../src/voices/espeak/index.ts';
import { VoicePool } from '../src/voices/pool.ts';
import { int16Wav } from '../src/speaking/speech.ts';
import { runFfmpeg } from '../src/media/ffmpeg.ts';
import { availableRecognisers } from '../src/footage/recognition/index.ts';
import { MATCH_LIMITS } from '../src/consents/match.ts';
import { english } from '../src/consents/languages/english.ts';
import { drawPasscode, spokenStatement, statementOf } from '../src/consents/create.ts';
import { listenToConsent, type HeardWords } from '../src/consents/words.ts';

/** Test names: none is in src/footage/recognition/names.ts (the grammar's other names). */
export const GIVEN = 'anna maria peter lucas sofia elena marco julia oliver ingrid hugo nadia felix clara omar leila tomas greta ivan mila pablo rosa victor nina oscar ella simon irene'.split(' ');
export const SURNAMES = 'lopez miller brown novak fischer rossi dubois silva kowalski jensen larsen moreau weber costa bauer hoffmann eriksson murray keller nakamura okafor becker ferreira santos horvat petrov dupont schmidt'.split(' ');
export const VOICES = ['en-US-flite-rms', 'en-US-flite-slt', 'en-GB-flite-awb', 'en-US-flite-kal', 'en-US-espeak-female', 'en-US-espeak-male'];
const OTHER = 'The weather in the mountains was cold and bright all week, so we walked along the river every morning and cooked dinner by the fire while the children played games and told long stories until late.';

/** A small seeded generator (mulberry32): the same seed, the same names and passcodes. */
export function seeded(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
export const drawName = (pick: (n: number) => number) => `${cap(GIVEN[pick(GIVEN.length)]!)} ${cap(SURNAMES[pick(SURNAMES.length)]!)}`;

/**
 * One trial: a name and a passcode, another name and another passcode sharing no word with
 * them, and the statement read with the right ones (what the words step expects).
 */
export function drawTrial(pick: (n: number) => number) {
  const name = drawName(pick);
  const passcode = drawPasscode(english, pick);
  let otherName = drawName(pick);
  while (otherName.split(' ').some((w) => name.includes(w))) otherName = drawName(pick);
  let otherCode = drawPasscode(english, pick);
  while (otherCode.some((w) => passcode.includes(w))) otherCode = drawPasscode(english, pick);
  const statement = spokenStatement(statementOf(english, passcode), name);
  return { name, passcode, otherName, otherCode, expected: { statement, name, passcode } };
}

export type Outcome = 'verified' | 'review' | 'refused';
/** What the words step decides from the free transcription alone (before) and with the grammar pass (after). */
export function outcomes(h: HeardWords): { before: Outcome; after: Outcome } {
  const decide = (misses: number): Outcome => (h.match.similarity < MATCH_LIMITS.similarity ? 'refused' : misses === 0 ? 'verified' : misses === 1 ? 'review' : 'refused');
  const freeMisses = h.match.nameWordsFound.filter((f) => !f).length + h.match.passcodeFound.filter((f) => !f).length;
  return { before: decide(freeMisses), after: decide(h.misses) };
}

/** Speaks `text` as 16 kHz mono WAV (what the service extracts from an upload), with half a second of silence around it. */
export async function speakTo(pool: VoicePool, voice: string, text: string, dir: string, name: string): Promise<string> {
  const provider = voice.includes('-flite-') ? createFliteProvider({ pool }) : createEspeakProvider({ pool });
  // espeak-ng at 140 words a minute (its default 175 is faster than people read a statement).
  const s = await provider.synthesize({ text, voiceId: voice, ...(voice.includes('-espeak-') ? { rate: 140 / 175 } : {}) });
  const pad = Math.round(s.sampleRate / 2);
  const pcm = new Int16Array(s.pcm.length + 2 * pad);
  pcm.set(s.pcm, pad);
  const raw = join(dir, `${name}-raw.wav`);
  const wav = join(dir, `${name}.wav`);
  await writeFile(raw, int16Wav(pcm, s.sampleRate));
  const r = await runFfmpeg(['-loglevel', 'error', '-y', '-i', raw, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-map_metadata', '-1', '-bitexact', '-f', 'wav', wav], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
  return wav;
}

async function main() {
  const { values } = parseArgs({ options: { trials: { type: 'string', default: '24' }, seed: { type: 'string' }, voices: { type: 'string' } } });
  const seed = values.seed ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
  const voices = values.voices ? values.voices.split(',') : VOICES;
  const trials = Number(values.trials);
  const [recogniser] = availableRecognisers();
  if (!recogniser) throw new Error('pocketsphinx is not installed: node scripts/ensure-pocketsphinx.mjs');
  const pick = seeded(seed);
  const pool = new VoicePool();
  const dir = await mkdtemp(join(tmpdir(), 'consent-recognition-'));
  console.log(`CPU: ${cpus()[0]?.model} x${cpus().length}; seed ${seed}; ${trials} trials over ${voices.join(', ')}`);
  type Row = { voice: string; reading: string; before: Outcome; after: Outcome };
  const rows: Row[] = [];
  try {
    for (let t = 0; t < trials; t++) {
      const voice = voices[t % voices.length]!;
      const { name, passcode, otherName, otherCode, expected } = drawTrial(pick);
      const { statement } = expected;
      const readings: [string, string][] = [
        ['correct', statement],
        ['other name', spokenStatement(statementOf(english, passcode), otherName)],
        ['other passcode', spokenStatement(statementOf(english, otherCode), name)],
        // Another sentence never comes near the similarity limit (0.10-0.12): once per voice is enough.
        ...(t < voices.length ? [['other words', OTHER] as [string, string]] : []),
      ];
      for (const [reading, text] of readings) {
        const wav = await speakTo(pool, voice, text, dir, `${t}-${reading.replace(' ', '-')}`);
        const heard = await listenToConsent(recogniser, wav, expected, english);
        const o = outcomes(heard);
        rows.push({ voice, reading, ...o });
        console.log(`${voice} ${reading.padEnd(14)} "${name}" "${passcode.join(' ')}": before ${o.before}, after ${o.after} (similarity ${heard.match.similarity.toFixed(2)}; free: ${heard.transcript}${heard.listened !== null ? `; grammar: ${heard.listened}` : ''})`);
      }
    }
  } finally {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  }
  const count = (filter: (r: Row) => boolean, when: 'before' | 'after', outcome: Outcome) => rows.filter((r) => filter(r) && r[when] === outcome).length;
  const report = (label: string, filter: (r: Row) => boolean) => {
    const n = rows.filter(filter).length;
    if (n === 0) return;
    for (const when of ['before', 'after'] as const) {
      const v = count(filter, when, 'verified'), rv = count(filter, when, 'review'), rf = count(filter, when, 'refused');
      console.log(`${label.padEnd(40)} ${when.padEnd(6)} verified ${v}/${n} (${((100 * v) / n).toFixed(0)} %), review ${rv}, refused ${rf}/${n} (${((100 * rf) / n).toFixed(0)} %)`);
    }
  };
  console.log(`\nseed ${seed}`);
  for (const group of [{ label: 'all voices', f: (_: Row) => true }, { label: 'Flite', f: (r: Row) => r.voice.includes('flite') }, { label: 'espeak-ng', f: (r: Row) => r.voice.includes('espeak') }]) {
    for (const reading of ['correct', 'other name', 'other passcode', 'other words']) report(`${group.label}, ${reading}`, (r) => group.f(r) && r.reading === reading);
    report(`${group.label}, any wrong reading`, (r) => group.f(r) && r.reading !== 'correct');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
