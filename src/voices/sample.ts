import { ApiError } from '../errors.ts';
import { wavBytes } from '../compute/local/song.ts';
import type { VoiceCatalogue } from './catalogue.ts';
import type { Voice } from './interface.ts';

/**
 * `GET /tts/voices/{id}/sample`: a voice saying a short text, as a WAV, so a person choosing
 * a voice (the studio's voice picker) can hear it first. Spoken like any other speech, off
 * the request's event loop: the embedded voices in their worker pool, the external ones by
 * their guarded client. Bounded on every side: the text (SAMPLE_LIMITS.maxChars), how many
 * samples are spoken at once in this process (more are a 503 at once, not a queue), how long
 * one may take, and a small memory of recent samples (a voice's default sentence is spoken
 * once, however often it is asked for).
 */
export const SAMPLE_LIMITS = { maxChars: 300, concurrent: 2, timeoutMs: 30_000, remembered: 32 };

export type SampleLimits = typeof SAMPLE_LIMITS;

/** What a voice says when the caller gives no text. */
export const sampleSentence = (voice: Pick<Voice, 'name'>): string => `Hello, I am ${voice.name}. This is how I will read your script.`;

const invalid = (field: string, message: string) => new ApiError('ValidationError', `Invalid query: ${field} ${message}`, [{ field, message }]);

export interface VoiceSampler {
  /** The sample as WAV bytes; ValidationError, NotFoundError or ServiceUnavailableError. */
  speak(query: { voiceId: string; provider?: string; text?: string }, signal?: AbortSignal): Promise<Buffer>;
}

export function createVoiceSampler(catalogue: Pick<VoiceCatalogue, 'list' | 'providers'>, limits: SampleLimits = SAMPLE_LIMITS): VoiceSampler {
  const remembered = new Map<string, Buffer>();
  let speaking = 0;

  async function findVoice(voiceId: string, provider: string | undefined): Promise<Voice> {
    const [voice] = await catalogue.list({ id: voiceId, ...(provider !== undefined ? { provider } : {}) });
    if (!voice) throw new ApiError('NotFoundError', `No voice "${voiceId}"${provider ? ` of ${provider}` : ''} can speak here; GET /tts/voices lists them`);
    return voice;
  }

  return {
    async speak({ voiceId, provider, text }, signal) {
      const said = (text ?? '').trim().replace(/\s+/g, ' ');
      if (text !== undefined && said === '') throw invalid('text', 'has nothing to say');
      if (said.length > limits.maxChars) throw invalid('text', `is longer than ${limits.maxChars} characters (a sample is a sentence or two)`);
      const voice = await findVoice(voiceId, provider);
      const sentence = said || sampleSentence(voice);
      const key = `${voice.provider}\u0000${voice.id}\u0000${sentence}`;
      const known = remembered.get(key);
      if (known) {
        // Most recently used last: the first key is the one to forget.
        remembered.delete(key);
        remembered.set(key, known);
        return known;
      }
      const engine = catalogue.providers.find((p) => p.type === voice.provider);
      if (!engine) throw new ApiError('NotFoundError', `The ${voice.provider} voices cannot speak here`);
      if (speaking >= limits.concurrent) throw new ApiError('ServiceUnavailableError', 'Voice samples are busy being spoken; try again in a moment');
      speaking++;
      try {
        const timeout = AbortSignal.timeout(limits.timeoutMs);
        const speech = await engine.synthesize({ text: sentence, voiceId: voice.id, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        if (speech.pcm.length === 0) throw new ApiError('ServiceUnavailableError', `The voice ${voice.id} produced no sound for this text`);
        const wav = wavBytes({ sampleRate: speech.sampleRate, samples: Float32Array.from(speech.pcm, (s) => s / 32767) });
        remembered.set(key, wav);
        if (remembered.size > limits.remembered) remembered.delete(remembered.keys().next().value!);
        return wav;
      } catch (err) {
        if (err instanceof ApiError) throw err;
        // A refusal, a full pool, a vendor down or too slow: nothing the caller did wrong, and no internals.
        throw new ApiError('ServiceUnavailableError', `The voice ${voice.id} could not speak a sample now; try again in a moment`);
      } finally {
        speaking--;
      }
    },
  };
}
