/**
 * The embedded providers (espeak, flite) as VoiceProviders: a catalogue lookup on the calling
 * thread, the synthesis in the voice pool's worker threads (src/voices/pool.ts).
 */
import { SpeechError, type Speech, type SpeechRequest, type Voice, type VoiceProvider } from './interface.ts';
import { VoicePool, type SynthesisJob } from './pool.ts';

export interface EmbeddedProviderOptions {
  /** A pool shared with the other embedded provider; without one the provider makes its own and closes it in close(). */
  pool?: VoicePool;
}

type EmbeddedVoice = Voice & { engineVoice: string };

export function createEmbeddedProvider(
  engine: SynthesisJob['engine'],
  catalogue: readonly EmbeddedVoice[],
  options: EmbeddedProviderOptions,
): VoiceProvider {
  const owned = options.pool ? undefined : new VoicePool();
  const pool = options.pool ?? owned!;
  const byId = new Map(catalogue.map((v) => [v.id, v]));
  // Records without the engine's private name, as GET /tts/voices shows them.
  const listed: Voice[] = catalogue.map(({ engineVoice: _engineVoice, ...voice }) => voice);

  return {
    type: engine,
    async voices() {
      return listed.map((v) => ({ ...v, languages: v.languages.map((l) => ({ ...l })), styles: [...v.styles] }));
    },
    async synthesize(request: SpeechRequest): Promise<Speech> {
      const voice = byId.get(request.voiceId);
      if (!voice) throw new SpeechError('unknown-voice', `${engine} has no voice '${request.voiceId}'`);
      if (request.rate !== undefined && !(request.rate > 0 && Number.isFinite(request.rate))) {
        throw new SpeechError('vendor', `rate must be a positive number, not ${request.rate}`);
      }
      const speech = await pool.run({ engine, voice: voice.engineVoice, text: request.text, ssml: request.ssml, rate: request.rate }, request.signal);
      return { ...speech, voice: { provider: engine, voiceId: voice.id } };
    },
    async close() {
      await owned?.close();
    },
  };
}
