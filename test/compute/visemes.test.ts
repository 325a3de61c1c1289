import { describe, expect, it } from 'vitest';
import { mouthFromCues, visemeOf } from '../../src/compute/local/visemes.ts';
import { avOffset } from '../../src/compute/local/lipsync.ts';
import type { SpeechCue } from '../../src/compute/interface.ts';

const cue = (phoneme: string, startMs: number, endMs: number, alphabet: SpeechCue['alphabet'] = 'arpabet'): SpeechCue => ({ phoneme, alphabet, startMs, endMs });

describe('visemes', () => {
  it.each([
    ['p', 'arpabet'], ['b', 'arpabet'], ['m', 'arpabet'], ['p', 'ipa'], ['b', 'ipa'], ['m', 'ipa'],
  ] as const)('%s (%s) presses the lips shut', (p, alphabet) => {
    expect(visemeOf({ phoneme: p, alphabet })).toMatchObject({ open: 0, closed: true });
  });

  it('opens wide for open vowels, rounds for rounded ones, in both alphabets, stress marks aside', () => {
    expect(visemeOf({ phoneme: 'aa1', alphabet: 'arpabet' }).open).toBeGreaterThan(0.8);
    expect(visemeOf({ phoneme: 'ˈɑː', alphabet: 'ipa' }).open).toBeGreaterThan(0.8);
    expect(visemeOf({ phoneme: 'uw', alphabet: 'arpabet' }).round).toBeGreaterThan(0.8);
    expect(visemeOf({ phoneme: 'uː', alphabet: 'ipa' }).round).toBeGreaterThan(0.8);
    expect(visemeOf({ phoneme: 'w', alphabet: 'ipa' }).round).toBeGreaterThan(0.8);
    expect(visemeOf({ phoneme: 'iy', alphabet: 'arpabet' }).round).toBe(0);
    expect(visemeOf({ phoneme: 'pau', alphabet: 'arpabet' }).open).toBe(0);
    expect(visemeOf({ phoneme: 'ˈ', alphabet: 'ipa' }).open).toBe(0);
    // Something no table knows still moves the mouth a little rather than freezing it.
    expect(visemeOf({ phoneme: 'qq', alphabet: 'arpabet' }).open).toBeGreaterThan(0);
  });
});

describe('the mouth from phoneme timings', () => {
  // "ma pa": m 0-100, aa 100-300, p 300-380, aa 380-600, silence after.
  const cues = [cue('m', 0, 100), cue('aa', 100, 300), cue('p', 300, 380), cue('aa', 380, 600), cue('pau', 600, 1000)];
  const { mouth, round } = mouthFromCues(cues, 25, 25);

  it('opens on the vowels and is shut inside each bilabial', () => {
    expect(mouth[Math.floor(0.2 * 25)]!).toBeGreaterThan(0.6);
    expect(mouth[Math.floor(0.49 * 25)]!).toBeGreaterThan(0.6);
    expect(mouth[Math.floor(0.33 * 25)]!).toBe(0);
    expect(mouth[1]!).toBe(0);
    expect(round.every((r) => r === 0)).toBe(true);
  });

  it('comes to rest in the pause, and is still where the audio is silent', () => {
    expect(mouth[24]!).toBeLessThan(0.05);
    const quiet = mouthFromCues(cues, 25, 25, Array(25).fill(0));
    expect(Math.max(...quiet.mouth)).toBeLessThanOrEqual(0.25 * Math.max(...mouth) + 1e-9);
  });

  it('rounds the lips for oo', () => {
    const oo = mouthFromCues([cue('uw', 0, 400)], 10, 25);
    expect(Math.max(...oo.round)).toBeGreaterThan(0.8);
  });
});

describe('the audio-visual offset', () => {
  const envelope = Array.from({ length: 200 }, (_, i) => Math.max(0, Math.sin(i / 3) + 0.3 * Math.sin(i / 7.3)));
  it.each([0, 2, -3])('finds a mouth that is %i frames late', (lag) => {
    const mouth = envelope.map((_, i) => envelope[i - lag] ?? 0);
    const { offsetMs, correlation } = avOffset(mouth, envelope, 25);
    expect(Math.abs(offsetMs - lag * 40)).toBeLessThan(12);
    expect(correlation).toBeGreaterThan(0.9);
  });
});
