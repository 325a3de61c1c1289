/**
 * The words step on random names and passcodes (a few per run; the seed is printed, and
 * MIMIC_TEST_SEED repeats a run): Flite reads the statement, pocketsphinx listens
 * (src/consents/words.ts). A correct reading is never refused; a reading with another name
 * or another passcode is never verified. bench/consent-recognition.ts measures the rates over
 * many draws (docs/speech-checks.md).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableRecognisers } from '../../src/footage/recognition/index.ts';
import { english } from '../../src/consents/languages/english.ts';
import { spokenStatement, statementOf } from '../../src/consents/create.ts';
import { listenToConsent } from '../../src/consents/words.ts';
import { drawTrial, outcomes, seeded } from '../../bench/consent-recognition.ts';
import { speak, workDir } from '../footage/speech-fixtures.ts';

const SEED = process.env.MIMIC_TEST_SEED ? Number(process.env.MIMIC_TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
const DRAWS = 2;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await workDir());
  console.log(`consent words: seed ${SEED} (MIMIC_TEST_SEED=${SEED} repeats these names and passcodes)`);
});
afterAll(() => cleanup());

describe('the words step on random names and passcodes', () => {
  const pick = seeded(SEED);
  const [recogniser] = availableRecognisers();
  for (let i = 0; i < DRAWS; i++) {
    const { name, passcode, otherName, otherCode, expected } = drawTrial(pick);

    it(`${name}, "${passcode.join(' ')}" (seed ${SEED}): read correctly, not refused; with another name or passcode, not verified`, async () => {
      const say = async (text: string, file: string) => {
        await speak(text, join(dir, file), 'en-US-flite-rms');
        return outcomes(await listenToConsent(recogniser!, join(dir, file), expected, english));
      };
      const right = await say(expected.statement, `${i}-right.wav`);
      expect(right.after, `seed ${SEED}`).not.toBe('refused');
      // The grammar pass runs only when the transcript missed a word: what the transcript verified stays verified.
      if (right.before === 'verified') expect(right.after).toBe('verified');
      const wrongName = await say(spokenStatement(statementOf(english, passcode), otherName), `${i}-name.wav`);
      expect(wrongName.after, `seed ${SEED}: "${otherName}" said`).not.toBe('verified');
      const wrongCode = await say(spokenStatement(statementOf(english, otherCode), name), `${i}-code.wav`);
      expect(wrongCode.after, `seed ${SEED}: "${otherCode.join(' ')}" said`).toBe('refused');
    }, 300_000);
  }
});
