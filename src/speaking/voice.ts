import { ApiError } from '../errors.ts';
import type { SpeakingVoices } from './voices.ts';
import type { SpeakingVoice } from './records.ts';

/** The voice that speaks `asked` (a script's provider, or the caller's default), after the fallback policy; 503 without voices. */
export async function chooseVoice(voices: SpeakingVoices | undefined, asked: { type: string; voice_id: string; language?: string }, gender: 'male' | 'female' | undefined): Promise<SpeakingVoice> {
  if (!voices) throw new ApiError('ServiceUnavailableError', 'No voice can speak here: text scripts are not available on this server');
  const resolved = await voices.resolve({
    type: asked.type,
    voiceId: asked.voice_id,
    ...(asked.language !== undefined ? { language: asked.language } : {}),
    ...(gender ? { gender } : {}),
  });
  return { type: resolved.provider.type, voiceId: resolved.voiceId, ...(resolved.fallback ? { fallback: resolved.fallback } : {}) };
}
