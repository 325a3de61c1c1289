import { SpeechError, type Gender, type Speech, type Voice, type VoiceProvider } from '../interface.ts';
import type { ConfiguredVoice, OpenAIConfig } from '../settings.ts';
import { decodeWav, joinSpeech, languageName, splitText } from './audio.ts';
import { callVendor, MAX_AUDIO_BYTES, type ExternalDeps } from './http.ts';
import { plainText } from './ssml.ts';

/**
 * An OpenAI-compatible speech endpoint (OpenAI's "Create speech"): POST {base}/audio/speech
 * with `Authorization: Bearer` and `{model, input, voice, response_format, speed}`.
 * `input` is at most 4096 characters (longer text is sent in pieces); `speed` is 0.25 to 4;
 * `response_format: "wav"` answers a WAV file (streamed: its size fields may be unknown).
 * The API has no voice list: the documented voices are listed here, unless the entry lists
 * a compatible server's own (`voices` in MIMIC_VOICE_PROVIDERS). The genders of OpenAI's
 * voices are not documented: the ones below are mimic's reading of how each voice sounds (an
 * assumption, stated in docs/voices-external.md). The API takes no SSML: an SSML script is
 * reduced to its text.
 */

export const OPENAI_VOICES: Record<string, Gender> = {
  alloy: 'female',
  ash: 'male',
  ballad: 'male',
  coral: 'female',
  echo: 'male',
  fable: 'male',
  onyx: 'male',
  nova: 'female',
  sage: 'female',
  shimmer: 'female',
  verse: 'male',
};

const MAX_INPUT_CHARS = 4096;

const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** OpenAI's documented voices, or the ones the entry lists for a compatible server. */
function voicesOf(config: OpenAIConfig): ConfiguredVoice[] {
  return config.voices ?? Object.entries(OPENAI_VOICES).map(([id, gender]) => ({ id, gender, name: capitalized(id), locale: 'en-US' }));
}

export function createOpenAIProvider(config: OpenAIConfig, deps: ExternalDeps): VoiceProvider {
  const known = new Set(voicesOf(config).map((v) => v.id));
  const list: Voice[] = voicesOf(config).map((v) => ({
    id: v.id,
    name: v.name,
    gender: v.gender,
    provider: 'openai',
    access: 'public',
    // OpenAI's voices are tuned for English; the model reads other languages too, with an English accent.
    languages: [{ language: languageName(v.locale), locale: v.locale }],
    styles: [],
    description: `OpenAI ${config.model}`,
  }));

  return {
    type: 'openai',
    voices: async () => list,
    async synthesize(request): Promise<Speech> {
      if (!known.has(request.voiceId)) {
        throw new SpeechError('unknown-voice', `openai has no voice ${JSON.stringify(request.voiceId.slice(0, 100))}; it has ${[...known].slice(0, 20).join(', ')}`);
      }
      const speed = request.rate === undefined ? undefined : Math.min(4, Math.max(0.25, request.rate));
      const parts = [];
      for (const input of splitText(plainText(request.text, request.ssml), MAX_INPUT_CHARS)) {
        const res = await callVendor(deps, {
          provider: 'openai', secretId: config.secretId, what: 'synthesis', method: 'POST', url: `${config.baseUrl}/audio/speech`,
          headers: { 'content-type': 'application/json', accept: 'audio/wav' },
          body: JSON.stringify({ model: config.model, input, voice: request.voiceId, response_format: 'wav', ...(speed !== undefined ? { speed } : {}) }),
          timeoutMs: config.timeoutMs, maxBytes: MAX_AUDIO_BYTES, signal: request.signal,
        });
        parts.push({ audio: decodeWav(res.body, 'openai'), words: [] });
      }
      return joinSpeech(parts, { provider: 'openai', voiceId: request.voiceId }, 'openai');
    },
  };
}
