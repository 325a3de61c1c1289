/**
 * What the voices capability offers the others: the voice catalogue every speaking
 * capability speaks with (`VOICES`), and the types they speak in. Other capabilities import
 * this file only, never the voices folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { VoiceCatalogue } from './catalogue.ts';

export type { VoiceCatalogue, VoiceChoice, ResolvedVoice, FallbackPolicy } from './catalogue.ts';
export type { Voice, VoiceProvider, Gender, ProviderType, Speech, SpeechRequest, TimedPhoneme, TimedWord, VoiceLanguage } from './interface.ts';

export const VOICES = defineServiceKey<VoiceCatalogue>('voices');

declare module '../platform/platform.ts' {
  interface PlatformOptions {
    /** The voices that speak scripts, in place of the voices module's (tests pass a test double). */
    voices?: VoiceCatalogue;
  }
}

// The pure parts of voice choice the speaking capabilities use: the nearest voice for a locale
// and gender, the voice a text nobody chose one for speaks with, the embedded providers, and
// the error a provider throws when it cannot speak.
export { closestVoice, defaultVoice } from './catalogue.ts';
export { EMBEDDED_PROVIDERS, SpeechError } from './interface.ts';
