import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VoicePool } from '../../src/voices/pool.ts';
import { createFliteProvider, FLITE_VOICES } from '../../src/voices/flite/index.ts';
import { parsePhones } from '../../src/voices/flite/output.ts';
import type { VoiceProvider } from '../../src/voices/interface.ts';
import { expectSpeechError, expectTimingsInsideAudio, rms } from './embedded-checks.ts';

const SENTENCE = 'Hello world, this is a test.';

let pool: VoicePool;
let flite: VoiceProvider;

beforeAll(() => {
  pool = new VoicePool({ size: 1, warm: false });
  flite = createFliteProvider({ pool });
});
afterAll(async () => {
  await pool.close();
});

describe('Flite provider', () => {
  it('speaks a sentence: 16 kHz PCM of a plausible length, with ARPAbet phonemes inside the audio', async () => {
    const speech = await flite.synthesize({ text: SENTENCE, voiceId: 'en-US-flite-slt' });
    expect(speech.sampleRate).toBe(16_000);
    expect(speech.durationMs).toBeGreaterThan(1_000);
    expect(speech.durationMs).toBeLessThan(2_800);
    expect(speech.voice).toEqual({ provider: 'flite', voiceId: 'en-US-flite-slt' });
    expect(rms(speech.pcm, 0, speech.durationMs, speech.sampleRate)).toBeGreaterThan(300);
    expectTimingsInsideAudio(speech);
    expect(speech.phonemes.every((p) => p.alphabet === 'arpabet')).toBe(true);
    expect(speech.phonemes.map((p) => p.phoneme).slice(0, 4)).toEqual(['hh', 'ax', 'l', 'ow']);
    expect(speech.words).toEqual([]); // Flite gives no word times
  });

  it('every catalogued voice speaks, at one sample rate', async () => {
    expect((await flite.voices()).map((v) => v.id)).toEqual(FLITE_VOICES.map((v) => v.id));
    for (const voice of FLITE_VOICES) {
      const speech = await flite.synthesize({ text: 'Good morning.', voiceId: voice.id });
      expect(speech.sampleRate, voice.id).toBe(16_000);
      expect(speech.durationMs, voice.id).toBeGreaterThan(400);
      expect(rms(speech.pcm, 0, speech.durationMs, speech.sampleRate), voice.id).toBeGreaterThan(200);
    }
  });

  it('a <break time="1s"/> adds about a second, and rate 2 shortens the speech', async () => {
    const plain = await flite.synthesize({ text: SENTENCE, voiceId: 'en-US-flite-rms' });
    const broken = await flite.synthesize({ text: '<speak>Hello world, <break time="1s"/> this is a test.</speak>', voiceId: 'en-US-flite-rms', ssml: true });
    const added = broken.durationMs - plain.durationMs;
    expect(added).toBeGreaterThan(600);
    expect(added).toBeLessThan(1_500);
    expectTimingsInsideAudio(broken);
    const fast = await flite.synthesize({ text: SENTENCE, voiceId: 'en-US-flite-rms', rate: 2 });
    expect(fast.durationMs).toBeLessThan(plain.durationMs * 0.75);
    const slow = await flite.synthesize({ text: `<speak><prosody rate="50%">${SENTENCE}</prosody></speak>`, voiceId: 'en-US-flite-rms', ssml: true });
    expect(slow.durationMs).toBeGreaterThan(plain.durationMs * 1.4);
  });

  it('refuses an unknown voice and invalid SSML', async () => {
    await expectSpeechError(flite.synthesize({ text: SENTENCE, voiceId: 'en-US-flite-kal8' }), 'unknown-voice');
    await expectSpeechError(flite.synthesize({ text: '<speak>Hello', voiceId: 'en-US-flite-slt', ssml: true }), 'invalid-ssml');
  });

  it('survives inputs that make Flite write a lot (they crashed Node 20 without the fast-API-call fix)', async () => {
    // Each of these aborted the whole process in most runs: the test process dying fails this file.
    for (const text of ['1234567'.repeat(90), 'x'.repeat(300), 'word and another word '.repeat(100)]) {
      for (let i = 0; i < 3; i++) {
        const speech = await flite.synthesize({ text, voiceId: 'en-US-flite-slt' });
        expect(speech.durationMs).toBeGreaterThan(1_000);
      }
    }
  });

  it('reads the phone list Flite prints, leaving pauses out', () => {
    expect(parsePhones('pau:0.164 hh:0.255 ax:0.304 pau:0.500 \n', 450)).toEqual([
      { phoneme: 'hh', alphabet: 'arpabet', startMs: 164, endMs: 255 },
      { phoneme: 'ax', alphabet: 'arpabet', startMs: 255, endMs: 304 },
    ]);
  });

  it('times each utterance from where it starts in the audio (Flite restarts its clock per sentence)', () => {
    const out = 'pau:0.164 hh:0.255 ax:0.304 pau:1.011 \npau:0.197 dh:0.245 ih:0.304 pau:1.742 \n';
    expect(parsePhones(out, 2753)).toEqual([
      { phoneme: 'hh', alphabet: 'arpabet', startMs: 164, endMs: 255 },
      { phoneme: 'ax', alphabet: 'arpabet', startMs: 255, endMs: 304 },
      { phoneme: 'dh', alphabet: 'arpabet', startMs: 1011 + 197, endMs: 1011 + 245 },
      { phoneme: 'ih', alphabet: 'arpabet', startMs: 1011 + 245, endMs: 1011 + 304 },
    ]);
  });

  it('spreads the phonemes of several sentences over the whole audio', async () => {
    const speech = await flite.synthesize({ text: 'Good morning to you. This is the second sentence. And here comes a third one, a little longer than the others.', voiceId: 'en-US-flite-slt' });
    expect(speech.phonemes.at(-1)!.endMs).toBeGreaterThan(speech.durationMs * 0.85);
    // No stretch of two seconds without a phoneme in a text without long pauses.
    for (let t = 0; t + 2000 < speech.durationMs * 0.9; t += 500) {
      expect(speech.phonemes.some((p) => p.endMs > t && p.startMs < t + 2000), `phonemes between ${t} and ${t + 2000} ms`).toBe(true);
    }
  });

  it('speaks 40,000 characters in pieces (slow-ok)', { timeout: 600_000 }, async () => {
    const text = 'The quick brown fox jumps over the lazy dog. Then it runs far away into the forest! '.repeat(480).slice(0, 40_000);
    const started = performance.now();
    const speech = await flite.synthesize({ text, voiceId: 'en-US-flite-kal' });
    console.log(`flite: 40,000 characters, ${(speech.durationMs / 1000).toFixed(0)} s of speech in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(speech.durationMs).toBeGreaterThan(20 * 60_000);
    expect(speech.phonemes.at(-1)!.endMs).toBeGreaterThan(speech.durationMs * 0.95);
    expectTimingsInsideAudio(speech);
  });
});
