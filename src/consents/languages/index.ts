import type { ConsentLanguage } from './types.ts';
import { english } from './english.ts';
import { german } from './german.ts';
import { dutch } from './dutch.ts';
import { danish } from './danish.ts';
import { swedish } from './swedish.ts';
import { turkish } from './turkish.ts';
import { french } from './french.ts';
import { spanish } from './spanish.ts';
import { italian } from './italian.ts';
import { portuguese } from './portuguese.ts';
import { romanian } from './romanian.ts';
import { indonesian } from './indonesian.ts';
import { polish } from './polish.ts';
import { czech } from './czech.ts';
import { slovak } from './slovak.ts';
import { croatian } from './croatian.ts';
import { malay } from './malay.ts';
import { filipino } from './filipino.ts';

/**
 * The 18 languages of the interface, in its order. Each statement was written for mimic and its
 * meaning checked against the English one (docs/consent-texts.md shows every text with its back
 * translation and how it was reviewed).
 */
export const CONSENT_LANGUAGES: readonly ConsentLanguage[] = [
  dutch, turkish, swedish, indonesian, filipino, czech, romanian, danish, malay, slovak, croatian, english, polish, german, spanish, french, italian, portuguese,
];

const byName = new Map(CONSENT_LANGUAGES.map((l) => [l.name, l]));

/**
 * The language of that name in any case ("English" as the interface writes it, "english" as
 * the API answers), or undefined. The record keeps the lower-case name.
 */
export const findLanguage = (name: string): ConsentLanguage | undefined => byName.get(name.trim().toLowerCase());
