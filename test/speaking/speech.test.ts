/**
 * The speaking kit's own rules, without a capability around it: a voice's refusal is the
 * record's TextToSpeechError while an abort stays an abort, and the per-15-s credit rule.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeechError } from '../../src/voices/interface.ts';
import { SpeakingFailure, providerOf, speakToWav } from '../../src/speaking/speech.ts';
import { creditsForSeconds, estimateSpeechSeconds, spokenText } from '../../src/speaking/credits.ts';
import type { Synthesiser } from '../../src/speaking/voices.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-speaking-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const failing = (err: unknown): Synthesiser => ({ type: 'stub', synthesize: () => Promise.reject(err) });
const request = { text: 'Hello there', voiceId: 'v1' };

describe('speakToWav', () => {
  it('writes the provider\'s samples as a 16-bit WAV with its phoneme cues and length', async () => {
    const pcm = Int16Array.from({ length: 1600 }, (_, i) => Math.round(Math.sin(i / 5) * 8000));
    const cue = { phoneme: 'HH', alphabet: 'arpabet' as const, startMs: 0, endMs: 40 };
    const provider: Synthesiser = { type: 'stub', synthesize: async () => ({ pcm, sampleRate: 16_000, durationMs: 100, phonemes: [cue] }) };
    const speech = await speakToWav(provider, request, dir);
    expect(speech).toEqual({ path: join(dir, 'speech.wav'), contentType: 'audio/wav', cues: [cue], seconds: 0.1 });
    const wav = await readFile(speech.path);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
  });

  it('turns a voice\'s refusal into the record\'s TextToSpeechError', async () => {
    const err = await speakToWav(failing(new SpeechError('vendor', 'the vendor refused: quota exceeded')), request, dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpeakingFailure);
    expect(err).toMatchObject({ kind: 'TextToSpeechError', description: 'the vendor refused: quota exceeded' });
  });

  it('refuses silence as a TextToSpeechError', async () => {
    const provider: Synthesiser = { type: 'stub', synthesize: async () => ({ pcm: new Int16Array(0), sampleRate: 16_000, durationMs: 0, phonemes: [] }) };
    await expect(speakToWav(provider, request, dir)).rejects.toMatchObject({ kind: 'TextToSpeechError' });
  });

  it('leaves an aborted synthesis and any other failure as they are (the job engine\'s to handle)', async () => {
    const aborted = new SpeechError('aborted', 'stopped');
    await expect(speakToWav(failing(aborted), request, dir)).rejects.toBe(aborted);
    const other = new Error('worker thread died');
    await expect(speakToWav(failing(other), request, dir)).rejects.toBe(other);
  });

  it('names a voice provider that is gone', () => {
    expect(() => providerOf({ providers: [], resolve: () => Promise.reject(new Error('unused')) }, 'elevenlabs')).toThrow(SpeakingFailure);
    expect(() => providerOf(undefined, 'flite')).toThrow(/The flite voice provider is no longer available/);
  });
});

describe('the credit rule', () => {
  it('charges one credit per started 15 s of speech, at least one', () => {
    expect([0, 1, 15, 15.001, 30, 30.5].map(creditsForSeconds)).toEqual([1, 1, 1, 2, 2, 3]);
  });

  it('estimates a text by its spoken characters, SSML tags not counted', () => {
    expect(spokenText('<speak>Hello <break time="1s"/> world</speak>', true)).toBe('Hello world');
    expect(estimateSpeechSeconds('a'.repeat(140), false)).toBe(10);
  });
});
