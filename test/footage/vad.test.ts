/**
 * detectSpeech: Silero VAD in a worker thread finds where Flite speech ends in front of 30 s
 * of silence or low noise, agreeing with ffmpeg's silencedetect; a file of silence and noise
 * has none.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSpeech, spansOf } from '../../src/footage/vad.ts';
import { detectSound } from '../../src/footage/silence.ts';
import { ffmpeg, speak, statement, withTail, workDir } from './speech-fixtures.ts';

let dir: string;
let cleanup: () => Promise<void>;
let spokenSec: number;

beforeAll(async () => {
  ({ dir, cleanup } = await workDir());
  spokenSec = await speak(statement('Maria Lopez', 'garden pencil river'), join(dir, 'speech.wav'));
  await withTail(join(dir, 'speech.wav'), 30, join(dir, 'then-silence.wav'));
  await withTail(join(dir, 'speech.wav'), 30, join(dir, 'then-noise.wav'), 'anoisesrc=r=16000:a=0.003:c=pink');
  await ffmpeg(['-f', 'lavfi', '-t', '20', '-i', 'anoisesrc=r=16000:a=0.003:c=pink', join(dir, 'noise-only.wav')]);
});
afterAll(() => cleanup());

describe('detectSpeech', () => {
  for (const name of ['then-silence.wav', 'then-noise.wav']) {
    it(`finds the end of the speech before 30 s of ${name === 'then-silence.wav' ? 'silence' : 'low noise'}, as silencedetect does`, async () => {
      const [vad, sound] = await Promise.all([detectSpeech(join(dir, name)), detectSound(join(dir, name))]);
      expect(vad.method).toBe('silero-vad');
      expect(vad.durationSec).toBeCloseTo(spokenSec + 30, 0);
      // Flite leaves a little quiet at the end of its speech.
      expect(vad.lastSpeechEndSec!).toBeGreaterThan(spokenSec - 1.5);
      expect(vad.lastSpeechEndSec!).toBeLessThanOrEqual(spokenSec + 0.5);
      expect(Math.abs(vad.lastSpeechEndSec! - sound.lastSpeechEndSec!)).toBeLessThan(1);
      expect(vad.speechSec).toBeGreaterThan(spokenSec * 0.6);
      expect(vad.speechSec).toBeLessThanOrEqual(spokenSec + 0.5);
    });
  }

  it('finds no speech in noise alone', async () => {
    const vad = await detectSpeech(join(dir, 'noise-only.wav'));
    expect(vad.spans).toEqual([]);
    expect(vad.lastSpeechEndSec).toBeNull();
    expect(vad.durationSec).toBeCloseTo(20, 0);
  });

  it('stops when aborted, and runs again after', async () => {
    const controller = new AbortController();
    const running = detectSpeech(join(dir, 'then-silence.wav'), controller.signal);
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    const again = await detectSpeech(join(dir, 'speech.wav'));
    expect(again.spans.length).toBeGreaterThan(0);
  });
});

describe('spansOf', () => {
  const w = 0.032;
  it('opens at the threshold, closes after 100 ms below the lower one, drops spans under 250 ms, pads by 30 ms', () => {
    const probs = [0, 0, ...Array(20).fill(0.9), 0.4, ...Array(10).fill(0.1), ...Array(5).fill(0.8), ...Array(10).fill(0)];
    const spans = spansOf(probs, w, probs.length * w);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.startSec).toBeCloseTo(2 * w - 0.03, 5);
    // Speech ends at the first window below 0.35 (index 23), padded.
    expect(spans[0]!.endSec).toBeCloseTo(23 * w + 0.03, 5);
  });

  it('keeps a dip shorter than 100 ms inside the span and runs a span open at the end to the end', () => {
    const probs = [...Array(10).fill(0.9), 0.1, 0.1, ...Array(10).fill(0.9)];
    expect(spansOf(probs, w, 1)).toEqual([{ startSec: 0, endSec: 1 }]);
  });
});
