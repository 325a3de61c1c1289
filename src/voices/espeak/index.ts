/** The espeak-ng voice provider (`provider.type: "espeak"`): see voices.ts for the catalogue. */
import type { VoiceProvider } from '../interface.ts';
import { createEmbeddedProvider, type EmbeddedProviderOptions } from '../embedded.ts';
import { ESPEAK_VOICES } from './voices.ts';

export { ESPEAK_VOICES, findEspeakVoice, espeakVoiceId } from './voices.ts';

export function createEspeakProvider(options: EmbeddedProviderOptions = {}): VoiceProvider {
  return createEmbeddedProvider('espeak', ESPEAK_VOICES, options);
}
