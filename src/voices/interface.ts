/**
 * Voices: text to speech behind one interface. A provider is chosen by the script's
 * `provider.type` (the hosted service's names: `microsoft`, `elevenlabs`, ...; and the
 * embedded `espeak` and `flite`). Providers are folders under src/voices/ that export a
 * `VoiceProvider`; src/voices/catalogue.ts lists the ones that can speak here.
 *
 * Speech is CPU work (the embedded voices) or an outbound call (the external ones): never on
 * the request path. Embedded synthesis runs in a worker thread (src/voices/pool.ts).
 */

/** Every provider type a script may name. The embedded two always exist. */
export const PROVIDER_TYPES = ['espeak', 'flite', 'microsoft', 'elevenlabs', 'openai'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export const EMBEDDED_PROVIDERS = ['espeak', 'flite'] as const satisfies readonly ProviderType[];

export type Gender = 'male' | 'female';

/** One language a voice speaks, in the hosted service's shape (`GET /tts/voices`). */
export interface VoiceLanguage {
  /** A language name in English, e.g. "English". */
  language: string;
  /** A BCP 47 tag, e.g. "en-US". */
  locale: string;
}

/** A voice that can speak here: the items of `GET /tts/voices` (the hosted service's IVoice). */
export interface Voice {
  /** Unique per provider: what `script.provider.voice_id` names. */
  id: string;
  name: string;
  gender: Gender;
  provider: ProviderType;
  access: 'public';
  languages: VoiceLanguage[];
  styles: string[];
  description?: string;
}

/** What to say and how. `ssml`: the text is SSML (`<speak>`, `<break>`, `<prosody rate>`). */
export interface SpeechRequest {
  text: string;
  voiceId: string;
  ssml?: boolean;
  /** A rate relative to 1 (0.5 half speed, 2 twice as fast); absent: the voice's own. */
  rate?: number;
  /** Stops a synthesis that is no longer wanted (the record was deleted, the service stops). */
  signal?: AbortSignal;
}

/** One phoneme with its span in the audio, for the mouth (src/voices/visemes.ts maps it). */
export interface TimedPhoneme {
  /** The phoneme as the provider names it: IPA for espeak, ARPAbet for flite. */
  phoneme: string;
  alphabet: 'ipa' | 'arpabet';
  startMs: number;
  endMs: number;
}

export interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** Synthesized speech: 16-bit PCM mono, with whatever timings the provider gives. */
export interface Speech {
  /** Signed 16-bit little-endian PCM samples, one channel. */
  pcm: Int16Array;
  sampleRate: number;
  durationMs: number;
  /** Empty when the provider gives none (external voices): the mouth then follows the audio. */
  phonemes: TimedPhoneme[];
  words: TimedWord[];
  /** The voice that actually spoke (after any fallback). */
  voice: { provider: ProviderType; voiceId: string };
}

/** What a new voice is made from: a recording of one person speaking. */
export interface CloneRequest {
  /** The new voice's name at the vendor (shown in its voice list and `GET /tts/voices`). */
  name: string;
  /** a WAV or MP3 file, 30 s to a few minutes of speech */
  samplePath: string;
  description?: string;
  /**
   * The speaker's gender, sent to the vendor as a label. Give it: a vendor voice without a
   * male or female label is not listed here, and a script can only choose a listed voice.
   */
  gender?: Gender;
  /** The language spoken (a BCP 47 tag, e.g. "en-US"), sent as a label so the voice is listed under it; absent: listed as English. */
  locale?: string;
  signal?: AbortSignal;
}

export interface VoiceProvider {
  type: ProviderType;
  /** The voices it offers here; external ones ask the vendor (cached by the provider). */
  voices(): Promise<Voice[]>;
  synthesize(request: SpeechRequest): Promise<Speech>;
  /**
   * Makes a new voice of this provider from a recording of one person speaking (a
   * premium-plus avatar's footage). The answer's `voiceId` is an ordinary voice id of this
   * provider: `synthesize` speaks with it, and `voices()` lists it from then on. Absent: the
   * provider cannot clone. Failures are SpeechErrors.
   */
  clone?(request: CloneRequest): Promise<{ voiceId: string }>;
  /**
   * Deletes a voice that `clone` made (its avatar was deleted, or its consent withdrawn). A
   * voice the vendor no longer has counts as deleted. Present exactly when `clone` is. Only
   * ever pass an id `clone` answered: the vendor deletes any voice of the account by id.
   */
  deleteClone?(voiceId: string, signal?: AbortSignal): Promise<void>;
  /** Frees worker threads and the like. */
  close?(): Promise<void>;
}

/** A provider that cannot speak the request: unknown voice, bad SSML, vendor refusal. */
export class SpeechError extends Error {
  constructor(
    /** `invalid-sample`: a clone's sample is missing, empty, too large or neither WAV nor MP3. */
    readonly reason: 'unknown-voice' | 'invalid-ssml' | 'vendor' | 'too-long' | 'aborted' | 'invalid-sample',
    message: string,
  ) {
    super(message);
    this.name = 'SpeechError';
  }
}
