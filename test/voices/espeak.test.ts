import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VoicePool } from '../../src/voices/pool.ts';
import { createEspeakProvider, ESPEAK_VOICES } from '../../src/voices/espeak/index.ts';
import type { VoiceProvider } from '../../src/voices/interface.ts';
import { expectSpeechError, expectTimingsInsideAudio, rms } from './embedded-checks.ts';

const SENTENCE = 'Hello world, this is a test.';
const CONSENT_LANGUAGES = ['Dutch', 'Turkish', 'Swedish', 'Indonesian', 'Czech', 'Romanian', 'Danish', 'Malay', 'Slovak', 'Croatian', 'English', 'Polish', 'German', 'Spanish', 'French', 'Italian', 'Portuguese'];

let pool: VoicePool;
let espeak: VoiceProvider;

beforeAll(() => {
  pool = new VoicePool({ size: 1 });
  pool.warm();
  espeak = createEspeakProvider({ pool });
});
afterAll(async () => {
  await pool.close();
});

describe('espeak-ng provider', () => {
  it('speaks a sentence: 22,050 Hz PCM of a plausible length, with IPA phonemes and words inside the audio', async () => {
    const speech = await espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-female' });
    expect(speech.sampleRate).toBe(22_050);
    expect(speech.durationMs).toBeGreaterThan(1_000);
    expect(speech.durationMs).toBeLessThan(2_500);
    expect(speech.voice).toEqual({ provider: 'espeak', voiceId: 'en-US-espeak-female' });
    expect(rms(speech.pcm, 0, speech.durationMs, speech.sampleRate)).toBeGreaterThan(300);
    expectTimingsInsideAudio(speech);
    expect(speech.phonemes.every((p) => p.alphabet === 'ipa')).toBe(true);
    expect(speech.phonemes.map((p) => p.phoneme)).toContain('ð'); // "this"
    expect(speech.words.map((w) => w.text)).toEqual(['Hello', 'world', 'this', 'is', 'a', 'test']);
  });

  it('lists a male and a female voice for every consent language espeak has, with unique readable ids', async () => {
    const voices = await espeak.voices();
    expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length);
    for (const language of CONSENT_LANGUAGES) {
      const genders = voices.filter((v) => v.languages.some((l) => l.language === language)).map((v) => v.gender);
      expect(genders, language).toContain('male');
      expect(genders, language).toContain('female');
    }
    for (const v of voices) {
      expect(v.id).toBe(`${v.languages[0]!.locale}-espeak-${v.gender}`);
      expect(v.provider).toBe('espeak');
      expect(v).not.toHaveProperty('engineVoice');
    }
  });

  it('every catalogued voice speaks, and the female variant is higher pitched than the male', async () => {
    const zeroCrossingsPerSecond = (pcm: Int16Array, sampleRate: number) => {
      let crossings = 0;
      for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) crossings++;
      return crossings / (pcm.length / sampleRate);
    };
    const pitch = new Map<string, number>();
    for (const voice of ESPEAK_VOICES) {
      const speech = await espeak.synthesize({ text: '1 2 3', voiceId: voice.id });
      expect(speech.durationMs, voice.id).toBeGreaterThan(300);
      expect(rms(speech.pcm, 0, speech.durationMs, speech.sampleRate), voice.id).toBeGreaterThan(200);
      pitch.set(voice.id, zeroCrossingsPerSecond(speech.pcm, speech.sampleRate));
    }
    expect(pitch.get('en-US-espeak-female')!).toBeGreaterThan(pitch.get('en-US-espeak-male')!);
  });

  it('a <break time="1s"/> adds about a second of silence, and prosody rate changes the length', async () => {
    const plain = await espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-male', ssml: true });
    const broken = await espeak.synthesize({ text: '<speak>Hello world, <break time="1s"/> this is a test.</speak>', voiceId: 'en-US-espeak-male', ssml: true });
    const added = broken.durationMs - plain.durationMs;
    expect(added).toBeGreaterThan(700);
    expect(added).toBeLessThan(1_400);
    // The pause is silent, and the words after it moved by it.
    const world = broken.words.find((w) => w.text === 'world')!;
    const thisWord = broken.words.find((w) => w.text === 'this')!;
    expect(thisWord.startMs - world.endMs).toBeGreaterThan(900);
    expect(rms(broken.pcm, world.endMs + 100, world.endMs + 900, broken.sampleRate)).toBeLessThan(50);
    expectTimingsInsideAudio(broken);

    const slow = await espeak.synthesize({ text: `<speak><prosody rate="x-slow">${SENTENCE}</prosody></speak>`, voiceId: 'en-US-espeak-male', ssml: true });
    expect(slow.durationMs).toBeGreaterThan(plain.durationMs * 1.4);
  });

  it('rate 2 shortens the speech and rate 0.5 lengthens it', async () => {
    const normal = await espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-female' });
    const fast = await espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-female', rate: 2 });
    const slow = await espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-female', rate: 0.5 });
    expect(fast.durationMs).toBeLessThan(normal.durationMs * 0.75);
    expect(slow.durationMs).toBeGreaterThan(normal.durationMs * 1.4);
  });

  it('refuses an unknown voice and invalid SSML', async () => {
    await expectSpeechError(espeak.synthesize({ text: SENTENCE, voiceId: 'en-US-espeak-robot' }), 'unknown-voice');
    const error = await expectSpeechError(espeak.synthesize({ text: '<speak>Hello <prosody rate="slow">world</speak>', voiceId: 'en-US-espeak-male', ssml: true }), 'invalid-ssml');
    expect(error.message).toMatch(/closes <prosody>/);
  });

  it('takes word texts from the input by character, accents included', async () => {
    const speech = await espeak.synthesize({ text: 'Élève à côté, voilà.', voiceId: 'fr-FR-espeak-female' });
    expect(speech.words.map((w) => w.text)).toEqual(['Élève', 'à', 'côté', 'voilà']);
  });

  it('speaks characters that look like markup when ssml is off', async () => {
    const speech = await espeak.synthesize({ text: 'Tom < Jerry & <b>friends</b>', voiceId: 'en-US-espeak-male' });
    expect(speech.words.map((w) => w.text)).toContain('Jerry');
  });

  it('speaks 40,000 characters (slow-ok)', { timeout: 300_000 }, async () => {
    const text = 'The quick brown fox jumps over the lazy dog. Then it runs far away into the forest! '.repeat(480).slice(0, 40_000);
    const speech = await espeak.synthesize({ text, voiceId: 'en-GB-espeak-female' });
    expect(speech.durationMs).toBeGreaterThan(20 * 60_000); // about 40 minutes of speech
    expect(speech.words.length).toBeGreaterThan(7_000);
    expect(speech.words.at(-1)!.endMs).toBeLessThanOrEqual(speech.durationMs);
    expect(speech.words.at(-1)!.startMs).toBeGreaterThan(speech.durationMs * 0.95);
  });
});
