import type { SpeechCue } from '../compute/interface.ts';

/** What to say and how. `ssml`: the text is SSML; `rate` relative to 1; `signal` stops a synthesis no longer wanted. */
export interface SynthesisRequest {
  text: string;
  voiceId: string;
  ssml?: boolean;
  rate?: number;
  signal?: AbortSignal;
}

/** Synthesized speech as the engine reads it: 16-bit PCM mono, and the phoneme timings when the provider gives them. */
export interface Synthesis {
  pcm: Int16Array;
  sampleRate: number;
  durationMs: number;
  phonemes: readonly SpeechCue[];
}

export interface Synthesiser {
  type: string;
  synthesize(request: SynthesisRequest): Promise<Synthesis>;
}

/**
 * The voices the engine speaks with, as it uses them: the platform's voice catalogue (the
 * voices capability) is one. `resolve` applies the fallback policy to a script's choice.
 */
export interface SpeakingVoices {
  providers: readonly Synthesiser[];
  resolve(choice: { type: string; voiceId: string; language?: string; gender?: 'male' | 'female' }): Promise<{
    provider: { type: string };
    voiceId: string;
    fallback?: { requested: { type: string; voiceId: string }; reason: string };
  }>;
}

/**
 * A provider that cannot speak the request (unknown voice, bad SSML, vendor refusal): the
 * voices' `SpeechError`, known by its name; an aborted synthesis is not a refusal.
 */
export const isRefusal = (err: unknown): err is Error =>
  err instanceof Error && err.name === 'SpeechError' && (err as { reason?: unknown }).reason !== 'aborted';
