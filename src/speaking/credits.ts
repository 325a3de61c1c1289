import { stat } from 'node:fs/promises';
import { ApiError } from '../errors.ts';
import { AUDIO_LIMITS, measureAudio } from '../media/audio.ts';
import type { SpeakingScript } from './script.ts';

/**
 * The credit rule of speech (docs/clips.md), the same for clips, talks and streams: one credit
 * per started 15 seconds of speech, charged at creation and refunded when the record ends in
 * error or is deleted before it is done.
 * A text's length is estimated at creation (CHARS_PER_SECOND, about 150 words a minute; SSML
 * tags and breaks are not counted); a stored audio (POST /audios) is measured; an https audio,
 * whose length is only known once the job fetches it, is charged HTTPS_AUDIO_CREDITS and may
 * be at most HTTPS_AUDIO_CREDITS * 15 seconds long (longer audios: upload them first).
 */
export const SECONDS_PER_CREDIT = 15;
export const CHARS_PER_SECOND = 14;
export const HTTPS_AUDIO_CREDITS = 4;

export const creditsForSeconds = (seconds: number): number => Math.max(1, Math.ceil(seconds / SECONDS_PER_CREDIT));

/** The spoken characters of a script's input (SSML tags removed). */
export const spokenText = (input: string, ssml: boolean): string =>
  (ssml ? input.replace(/<[^>]*>/g, ' ') : input).replace(/\s+/g, ' ').trim();

export const estimateSpeechSeconds = (input: string, ssml: boolean): number => spokenText(input, ssml).length / CHARS_PER_SECOND;

const bad = (field: string, message: string): ApiError => new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

/** A stored audio held to the script limits; answers its length in seconds. */
async function checkStoredAudio(path: string): Promise<number> {
  const { size } = await stat(path);
  if (size > AUDIO_LIMITS.maxBytes) {
    throw new ApiError('InvalidFileSizeError', `The audio is larger than the limit of ${AUDIO_LIMITS.maxBytes} bytes`, [{ field: 'script.audio_url', message: `must be at most ${AUDIO_LIMITS.maxBytes} bytes` }]);
  }
  const seconds = await measureAudio(path);
  if (seconds === undefined || seconds <= 0) throw bad('script.audio_url', 'names a file with no audio stream that decodes');
  if (seconds > AUDIO_LIMITS.maxSeconds) {
    throw new ApiError('InvalidAudioDurationError', `The audio is ${seconds.toFixed(1)} s long; the limit is ${AUDIO_LIMITS.maxSeconds} s`, [{ field: 'script.audio_url', message: `must be at most ${AUDIO_LIMITS.maxSeconds} seconds` }]);
  }
  return seconds;
}

/** Seconds of speech a script is charged for: a text's estimate, a stored audio's length, or the flat rate of an https audio. */
export async function chargedSeconds(script: SpeakingScript, storedAudio: string | undefined): Promise<number> {
  if (script.type === 'text') return estimateSpeechSeconds(script.input, script.ssml ?? false);
  if (storedAudio) return checkStoredAudio(storedAudio);
  return HTTPS_AUDIO_CREDITS * SECONDS_PER_CREDIT;
}
