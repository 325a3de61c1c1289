import { join } from 'node:path';
import type { Voice } from '../voices/contract.ts';
import { extractAudio } from '../footage/audio.ts';
import type { Logger } from '../log.ts';
import type { VoiceCatalogue } from '../voices/contract.ts';
import { findLanguage } from '../consents/contract.ts';

/**
 * The median pitch (Hz) of each embedded voice, measured once on a spoken sentence with the
 * estimator training uses (src/compute/local/pitch.ts; test/compute/train-pitch.test.ts); eSpeak's `+m3`/`+f3` variants are
 * set by their pitch range (80-122 Hz, 140-240 Hz).
 */
export const EMBEDDED_PITCH_HZ: Readonly<Record<string, number>> = {
  'en-US-flite-slt': 174,
  'en-GB-flite-awb': 133,
  'en-US-flite-rms': 102,
  'en-US-flite-kal': 89,
};
const ESPEAK_PITCH_HZ = { male: 100, female: 190 } as const;

export const pitchOf = (v: Voice): number => EMBEDDED_PITCH_HZ[v.id] ?? ESPEAK_PITCH_HZ[v.gender];

export interface ChosenVoice {
  type: string;
  voiceId: string;
  pitchHz: number | null;
  reason: string;
  /** Made for this avatar by the provider: deleted there with the avatar. */
  cloned?: boolean;
}

/**
 * The embedded voice closest to the person: of the consent's language (else English), of the
 * avatar's gender, and of the nearest pitch to the voice measured in the footage. Flite is
 * preferred over eSpeak where it speaks the language (it sounds more natural).
 */
export async function chooseAvatarVoice(voices: VoiceCatalogue | undefined, want: { language: string; gender: 'male' | 'female'; pitchHz: number | null }): Promise<ChosenVoice> {
  const code = findLanguage(want.language)?.code ?? 'en';
  const embedded = voices ? (await voices.list()).filter((v) => v.provider === 'flite' || v.provider === 'espeak') : [];
  const speaks = (v: Voice, c: string) => v.languages.some((l) => l.locale.toLowerCase().split('-')[0] === c);
  let pool = embedded.filter((v) => speaks(v, code));
  let note = `speaks ${want.language}`;
  if (pool.length === 0) {
    pool = embedded.filter((v) => speaks(v, 'en'));
    note = `no embedded voice speaks ${want.language}: English`;
  }
  const sameGender = pool.filter((v) => v.gender === want.gender);
  if (sameGender.length) pool = sameGender;
  // Flite, where it speaks the language, sounds more natural than eSpeak: it is chosen first.
  const flite = pool.filter((v) => v.provider === 'flite');
  if (flite.length) pool = flite;
  if (pool.length === 0) return { type: 'flite', voiceId: want.gender === 'female' ? 'en-US-flite-slt' : 'en-US-flite-rms', pitchHz: want.pitchHz, reason: 'no voice catalogue here: the default English voice of the gender' };
  const distance = (v: Voice) => (want.pitchHz === null ? 0 : Math.abs(Math.log(pitchOf(v) / want.pitchHz)));
  const best = pool.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  const pitch = want.pitchHz === null ? 'pitch not measured' : `pitch ${Math.round(want.pitchHz)} Hz, the voice's about ${pitchOf(best)} Hz`;
  return { type: best.provider, voiceId: best.id, pitchHz: want.pitchHz, reason: `the closest embedded voice: ${note}, ${want.gender}, ${pitch}` };
}

/** Longest stretch of the footage's speech sent to a cloning provider. */
export const CLONE_SAMPLE_SEC = 120;

/**
 * The presenter's voice: a clone of the person's own voice when a provider that clones is
 * configured (ElevenLabs; docs/voices-external.md, "Cloning a voice"), made from up to two
 * minutes of the footage's speech; otherwise, or when cloning fails, the closest embedded voice.
 */
export async function avatarVoice(
  deps: { voices: VoiceCatalogue | undefined; log: Pick<Logger, 'warn'> },
  want: { name: string; language: string; gender: 'male' | 'female'; pitchHz: number | null; footagePath: string; speech: { fromSec: number; toSec: number }; workDir: string; signal: AbortSignal },
): Promise<ChosenVoice> {
  const cloner = deps.voices?.cloner();
  const embedded = () => chooseAvatarVoice(deps.voices, want);
  if (!cloner?.clone) return embedded();
  try {
    const sample = join(want.workDir, 'voice-sample.wav');
    const toSec = Math.min(want.speech.toSec, want.speech.fromSec + CLONE_SAMPLE_SEC);
    // 16 kHz mono: two minutes is 3.8 MB, inside the providers' sample cap.
    if (!(await extractAudio(want.footagePath, sample, { fromSec: want.speech.fromSec, toSec, signal: want.signal }))) return embedded();
    const code = findLanguage(want.language)?.code ?? 'en';
    const { voiceId } = await cloner.clone({ name: `mimic ${want.name}`.slice(0, 100), samplePath: sample, description: 'A premium-plus avatar\'s voice, cloned by mimic from its consented footage', gender: want.gender, locale: code, signal: want.signal });
    return { type: cloner.type, voiceId, cloned: true, pitchHz: want.pitchHz, reason: `cloned from ${Math.round(toSec - want.speech.fromSec)} s of the footage's speech by ${cloner.type}` };
  } catch (err) {
    if (want.signal.aborted) throw err;
    deps.log.warn('voice cloning failed: the closest embedded voice speaks instead', { provider: cloner.type, error: (err as Error).message });
    const chosen = await embedded();
    return { ...chosen, reason: `${chosen.reason} (cloning with ${cloner.type} failed: ${(err as Error).message.slice(0, 200)})` };
  }
}

/** Deletes a cloned voice with its provider (best effort: the avatar is gone either way). */
export async function forgetClonedVoice(voices: VoiceCatalogue | undefined, voice: { type: string; voiceId: string; cloned?: boolean }, log: Pick<Logger, 'warn'>): Promise<void> {
  const cloner = voices?.cloner();
  if (!voice.cloned || !cloner?.deleteClone || cloner.type !== voice.type) return;
  try {
    await cloner.deleteClone(voice.voiceId);
  } catch (err) {
    log.warn('a cloned voice was not deleted at its provider', { provider: voice.type, error: (err as Error).message });
  }
}
