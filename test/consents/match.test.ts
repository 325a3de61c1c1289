/**
 * matchConsent on transcripts pocketsphinx made of Flite reading the consent statement
 * (bench/speech-checks.ts recorded them; docs/speech-checks.md): the right statement passes
 * through the recogniser's errors; another name, another passcode, another sentence fail;
 * plausibleSpeechLength for languages without a recogniser.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MATCH_LIMITS, matchConsent, plausibleSpeechLength, syllablesOf } from '../../src/consents/match.ts';
import { useDictionary, CMUDICT_PATH } from '../../src/footage/phones.ts';
import { statement } from '../footage/speech-fixtures.ts';

/** What pocketsphinx heard of en-US-flite-rms (garden pencil river) and en-US-flite-kal (candle market silver). */
const RMS = 'like mario lopez agree that the owner of this account may use my face and my voice to create a digital amateur of me which mimic i am recording this video of my own free will my pass code is guard and pencil river';
const KAL = 'but mario lopez agree but the owner of this account mayor\'s my face and my voice to create a digital an offer of me would mimic i am recording this video of my own free will my pass code is campbell markets over';
const OTHER = 'the weather in the mountains was gold and bright only did so we walked along the river every morning and cook dinner by the fire while the children played games and told long stories until late';

const want = (name: string, code: string) => ({ statement: statement(name, code), name, passcode: code.split(' '), language: 'english' });

afterEach(() => useDictionary(CMUDICT_PATH));

describe('matchConsent', () => {
  it('passes the statement as the recogniser heard it: split, joined and misheard words, the name and passcode on phones', () => {
    const rms = matchConsent(RMS, want('Maria Lopez', 'garden pencil river'));
    expect(rms).toMatchObject({ nameFound: true, passcodeFound: [true, true, true], passed: true });
    expect(rms.similarity).toBeGreaterThan(0.9);
    // "market silver" heard as "markets over": the run is aligned as a whole.
    const kal = matchConsent(KAL, want('Maria Lopez', 'candle market silver'));
    expect(kal).toMatchObject({ nameFound: true, passcodeFound: [true, true, true], passed: true });
    expect(kal.details).toMatch(/of 42 words/);
  });

  it('fails on another name, saying which words were not heard', () => {
    const r = matchConsent(RMS, want('John Smith', 'garden pencil river'));
    expect(r.nameFound).toBe(false);
    expect(r.passed).toBe(false);
    expect(r.similarity).toBeGreaterThanOrEqual(MATCH_LIMITS.similarity);
    expect(r.details).toMatch(/'john' NOT heard/);
  });

  it('fails on another passcode, each word reported', () => {
    const r = matchConsent(RMS, want('Maria Lopez', 'window orange blanket'));
    expect(r.passcodeFound).toEqual([false, false, false]);
    expect(r.nameFound).toBe(true);
    expect(r.passed).toBe(false);
    const one = matchConsent(RMS, want('Maria Lopez', 'garden pencil ladder'));
    expect(one.passcodeFound).toEqual([true, true, false]);
    expect(one.passed).toBe(false);
  });

  it('fails on another sentence of the same length, by similarity', () => {
    const r = matchConsent(OTHER, want('Maria Lopez', 'garden pencil river'));
    expect(r.similarity).toBeLessThan(0.2);
    expect(r.passed).toBe(false);
    expect(matchConsent('', want('Maria Lopez', 'garden pencil river'))).toMatchObject({ similarity: 0, nameFound: false, passed: false });
  });

  it('goes by letters without the dictionary, and for other languages', () => {
    useDictionary('/nonexistent/cmudict.dict');
    const exact = statement('Maria Lopez', 'garden pencil river').toLowerCase();
    expect(matchConsent(exact, want('Maria Lopez', 'garden pencil river')).passed).toBe(true);
    const spanish = { statement: 'Yo, Ana Pérez, acepto que el titular de esta cuenta use mi cara y mi voz. Mi código es jardín lápiz río.', name: 'Ana Pérez', passcode: ['jardín', 'lápiz', 'río'], language: 'spanish' };
    expect(matchConsent('yo ana peres acepto que el titular de esta cuenta usa mi cara y mi voz mi codigo es jardin lapiz rio', spanish)).toMatchObject({ nameFound: true, passcodeFound: [true, true, true], passed: true });
    expect(matchConsent('yo ana perez acepto que el titular de esta cuenta usa mi cara y mi voz mi codigo es gato mesa sol', spanish)).toMatchObject({ passcodeFound: [false, false, false], passed: false });
  });
});

describe('plausibleSpeechLength', () => {
  const text = statement('Maria Lopez', 'garden pencil river');

  it('estimates syllables from vowel groups', () => {
    expect(syllablesOf('garden pencil river')).toBe(6);
    expect(syllablesOf('jardín lápiz río')).toBe(6);
    expect(syllablesOf(text)).toBeGreaterThan(50);
    expect(syllablesOf(text)).toBeLessThan(70);
  });

  it('accepts speech of a reading\'s length and refuses too short or too long', () => {
    // Flite reads this statement in about 12 s.
    const r = plausibleSpeechLength(text, 12, 'english');
    expect(r.plausible).toBe(true);
    expect(r.expectedSec[0]).toBeLessThan(12);
    expect(r.expectedSec[1]).toBeGreaterThan(12);
    expect(plausibleSpeechLength(text, 2, 'english').plausible).toBe(false);
    expect(plausibleSpeechLength(text, 60, 'english').plausible).toBe(false);
  });
});
