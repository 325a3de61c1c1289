/**
 * The espeak-ng voices mimic offers: a curated catalogue, not espeak's 140 raw voices.
 *
 * Every language has a male and a female voice: the language's espeak voice with the
 * variant `+m3` (pitch 80-122 Hz, no roughness or echo) or `+f3` (pitch 140-240 Hz, plain
 * formants), the two plainest variants of this build (espeak-ng-data/voices/!v).
 * Ids are `<locale>-espeak-<gender>` (e.g. `en-US-espeak-female`): stable, readable, and
 * the same shape for every language. The 17 consent languages espeak has are all here
 * (Filipino is not in espeak-ng 1.52: the closest are Indonesian and Malay), plus widely
 * spoken ones. docs/voices.md shows the table.
 */
import type { Gender, Voice } from '../interface.ts';

export interface EspeakLanguage {
  /** English name of the language, as `GET /tts/voices` shows it. */
  language: string;
  /** BCP 47 tag of the voices. */
  locale: string;
  /** The espeak-ng voice name this build knows (its file name: `en` is British English, `fr` French of France). */
  espeak: string;
  /** Regional note for the voice name, if any. */
  region?: string;
}

export const ESPEAK_LANGUAGES: readonly EspeakLanguage[] = [
  // The consent languages of the interface (Filipino excepted: espeak has none).
  { language: 'English', locale: 'en-US', espeak: 'en-us', region: 'United States' },
  { language: 'English', locale: 'en-GB', espeak: 'en', region: 'United Kingdom' },
  { language: 'Spanish', locale: 'es-ES', espeak: 'es', region: 'Spain' },
  { language: 'Spanish', locale: 'es-MX', espeak: 'es-419', region: 'Latin America' },
  { language: 'French', locale: 'fr-FR', espeak: 'fr' },
  { language: 'German', locale: 'de-DE', espeak: 'de' },
  { language: 'Italian', locale: 'it-IT', espeak: 'it' },
  { language: 'Portuguese', locale: 'pt-PT', espeak: 'pt', region: 'Portugal' },
  { language: 'Portuguese', locale: 'pt-BR', espeak: 'pt-br', region: 'Brazil' },
  { language: 'Dutch', locale: 'nl-NL', espeak: 'nl' },
  { language: 'Polish', locale: 'pl-PL', espeak: 'pl' },
  { language: 'Turkish', locale: 'tr-TR', espeak: 'tr' },
  { language: 'Swedish', locale: 'sv-SE', espeak: 'sv' },
  { language: 'Indonesian', locale: 'id-ID', espeak: 'id' },
  { language: 'Czech', locale: 'cs-CZ', espeak: 'cs' },
  { language: 'Romanian', locale: 'ro-RO', espeak: 'ro' },
  { language: 'Danish', locale: 'da-DK', espeak: 'da' },
  { language: 'Malay', locale: 'ms-MY', espeak: 'ms' },
  { language: 'Slovak', locale: 'sk-SK', espeak: 'sk' },
  { language: 'Croatian', locale: 'hr-HR', espeak: 'hr' },
  // Widely spoken languages beyond the consent list.
  { language: 'Russian', locale: 'ru-RU', espeak: 'ru' },
  { language: 'Ukrainian', locale: 'uk-UA', espeak: 'uk' },
  { language: 'Arabic', locale: 'ar-SA', espeak: 'ar', region: 'Modern Standard' },
  { language: 'Hindi', locale: 'hi-IN', espeak: 'hi' },
  { language: 'Japanese', locale: 'ja-JP', espeak: 'ja' },
  { language: 'Korean', locale: 'ko-KR', espeak: 'ko' },
  { language: 'Chinese (Mandarin)', locale: 'zh-CN', espeak: 'cmn' },
];

export const ESPEAK_VARIANTS: Record<Gender, string> = { male: 'm3', female: 'f3' };

export interface EspeakVoice extends Voice {
  /** What the engine is given: `<espeak voice>+<variant>`. */
  engineVoice: string;
}

export const espeakVoiceId = (locale: string, gender: Gender) => `${locale}-espeak-${gender}`;

export const ESPEAK_VOICES: readonly EspeakVoice[] = ESPEAK_LANGUAGES.flatMap((l) =>
  (['female', 'male'] as const).map(
    (gender): EspeakVoice => ({
      id: espeakVoiceId(l.locale, gender),
      name: `${l.language}${l.region ? ` (${l.region})` : ''} ${gender === 'female' ? 'Female' : 'Male'} (espeak-ng)`,
      gender,
      provider: 'espeak',
      access: 'public',
      languages: [{ language: l.language, locale: l.locale }],
      styles: [],
      description: `espeak-ng voice '${l.espeak}' with the '${ESPEAK_VARIANTS[gender]}' variant; offline, formant synthesis`,
      engineVoice: `${l.espeak}+${ESPEAK_VARIANTS[gender]}`,
    }),
  ),
);

const byId = new Map(ESPEAK_VOICES.map((v) => [v.id, v]));
export const findEspeakVoice = (id: string): EspeakVoice | undefined => byId.get(id);
