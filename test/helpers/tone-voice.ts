/**
 * A test double of a voice provider that makes REAL audio: each word is a vowel-like tone
 * (a 140 Hz buzz with two formants, loud in the middle) with made-up ARPAbet timings, a p/b/m
 * closure (near silence) at the start of every word, and a short pause between words. Renders
 * driven by it are real renders of real speech-shaped sound, only without a synthesizer.
 */
import { FLITE_VOICES } from '../../src/voices/flite/voices.ts';
import type { Speech, SpeechRequest, Voice, VoiceProvider } from '../../src/voices/interface.ts';
import { SpeechError } from '../../src/voices/interface.ts';
import { createVoiceCatalogue, type VoiceCatalogue } from '../../src/voices/catalogue.ts';

const RATE = 16_000;
const CLOSURE_MS = 80;
const VOWEL_MS = 220;
const PAUSE_MS = 90;
const BILABIALS = ['P', 'B', 'M'];

export function toneSpeech(text: string, voiceId: string, provider: 'flite' | 'espeak' = 'flite'): Speech {
  const words = text.replace(/<[^>]*>/g, ' ').split(/\s+/).filter(Boolean);
  const phonemes: Speech['phonemes'] = [];
  const timed: Speech['words'] = [];
  const total = words.length * (CLOSURE_MS + VOWEL_MS + PAUSE_MS) + PAUSE_MS;
  const pcm = new Int16Array(Math.round((total / 1000) * RATE));
  let t = PAUSE_MS;
  words.forEach((w, i) => {
    const start = t;
    phonemes.push({ phoneme: BILABIALS[i % 3]!, alphabet: 'arpabet', startMs: t, endMs: t + CLOSURE_MS });
    t += CLOSURE_MS;
    phonemes.push({ phoneme: 'AA', alphabet: 'arpabet', startMs: t, endMs: t + VOWEL_MS });
    const a = Math.round((t / 1000) * RATE);
    const n = Math.round((VOWEL_MS / 1000) * RATE);
    for (let k = 0; k < n && a + k < pcm.length; k++) {
      const s = k / RATE;
      const env = Math.sin((Math.PI * k) / n);
      const v = 0.5 * Math.sin(2 * Math.PI * 140 * s) + 0.3 * Math.sin(2 * Math.PI * 700 * s) + 0.2 * Math.sin(2 * Math.PI * 1200 * s);
      pcm[a + k] = Math.round(v * env * 0.8 * 32767);
    }
    t += VOWEL_MS;
    phonemes.push({ phoneme: 'pau', alphabet: 'arpabet', startMs: t, endMs: t + PAUSE_MS });
    timed.push({ text: w, startMs: start, endMs: t });
    t += PAUSE_MS;
  });
  return { pcm, sampleRate: RATE, durationMs: (pcm.length / RATE) * 1000, phonemes, words: timed, voice: { provider, voiceId } };
}

export interface ToneVoice extends VoiceProvider {
  calls: SpeechRequest[];
}

/** A provider of `type` with the real Flite catalogue's voices (ids, genders, locales): the built-in presenters' voices exist. */
export function createToneVoice(type: 'flite' | 'espeak' = 'flite'): ToneVoice {
  const calls: SpeechRequest[] = [];
  const voices: Voice[] = FLITE_VOICES.map(({ engineVoice: _engine, ...v }) => ({ ...v, provider: type }));
  return {
    type,
    calls,
    voices: async () => voices,
    async synthesize(req) {
      calls.push(req);
      if (!voices.some((v) => v.id === req.voiceId)) throw new SpeechError('unknown-voice', `no voice ${req.voiceId}`);
      return toneSpeech(req.text, req.voiceId, type);
    },
  };
}

export function toneCatalogue(fallback: 'local' | 'error' = 'local'): { catalogue: VoiceCatalogue; voice: ToneVoice } {
  const voice = createToneVoice('flite');
  return { catalogue: createVoiceCatalogue({ providers: [voice], fallback }), voice };
}
