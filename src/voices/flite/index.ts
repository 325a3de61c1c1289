/** The Flite voice provider (`provider.type: "flite"`): four English voices, see voices.ts. */
import type { VoiceProvider } from '../interface.ts';
import { createEmbeddedProvider, type EmbeddedProviderOptions } from '../embedded.ts';
import { FLITE_VOICES } from './voices.ts';

export { FLITE_VOICES, findFliteVoice } from './voices.ts';

export function createFliteProvider(options: EmbeddedProviderOptions = {}): VoiceProvider {
  return createEmbeddedProvider('flite', FLITE_VOICES, options);
}
