/** Checks shared by the espeak and Flite tests: what any embedded speech must satisfy. */
import { expect } from 'vitest';
import { SpeechError, type Speech } from '../../src/voices/interface.ts';

/** Phonemes in order, each inside the audio, none running backwards. */
export function expectTimingsInsideAudio(speech: Speech): void {
  expect(speech.phonemes.length).toBeGreaterThan(5);
  let previousStart = 0;
  for (const p of speech.phonemes) {
    expect(p.startMs).toBeGreaterThanOrEqual(previousStart);
    expect(p.endMs).toBeGreaterThanOrEqual(p.startMs);
    expect(p.endMs).toBeLessThanOrEqual(speech.durationMs + 0.001);
    previousStart = p.startMs;
  }
  for (const w of speech.words) {
    expect(w.endMs).toBeGreaterThanOrEqual(w.startMs);
    expect(w.endMs).toBeLessThanOrEqual(speech.durationMs + 0.001);
  }
  expect(speech.durationMs).toBeCloseTo((speech.pcm.length / speech.sampleRate) * 1000, 3);
}

/** Root-mean-square level of a stretch of samples (0..32767). */
export function rms(pcm: Int16Array, fromMs: number, toMs: number, sampleRate: number): number {
  const from = Math.floor((fromMs / 1000) * sampleRate);
  const to = Math.min(pcm.length, Math.floor((toMs / 1000) * sampleRate));
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

export async function expectSpeechError(promise: Promise<unknown>, reason: SpeechError['reason']): Promise<SpeechError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SpeechError);
  expect((error as SpeechError).reason).toBe(reason);
  return error as SpeechError;
}
