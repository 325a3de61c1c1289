import type { RenderMetadata } from '../compute/interface.ts';

/** The voice that will speak a text script, fixed at creation (after the fallback policy). */
export interface SpeakingVoice {
  type: string;
  voiceId: string;
  fallback?: { requested: { type: string; voiceId: string }; reason: string };
}

/** The working fields (the `details` JSON of its resource row) of anything that speaks a script. */
export interface SpeakingDetails {
  voice: SpeakingVoice | null;
  /** Seconds of speech the charge was computed from (estimated for a text, measured for a stored audio). */
  chargedSeconds: number;
  /** Set once the speech exists: its media key (the WAV spoken, or the given audio) and its length. */
  audioKey?: string;
  speechSec?: number;
}

/** What a finished speaking render produced (the `result` JSON). */
export interface SpeakingResult {
  resultKey: string | null;
  resultExternalUrl: string | null;
  /** Media key of the speech as spoken (a 16-bit WAV for a text, the given file for an audio). */
  audioKey: string;
  durationSec: number;
  speechSec: number;
  metadata: RenderMetadata;
}
