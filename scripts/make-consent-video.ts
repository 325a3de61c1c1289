/**
 * Makes a consent video without a camera: an embedded voice reads the consent text and the
 * local renderer makes a face picture say it (mp4, H.264 + AAC, 25 fps, 512x512).
 *
 *   npx tsx scripts/make-consent-video.ts --text "<the consent text, your name in place of [user name]>" \
 *     [--language english] [--voice en-US-flite-slt] [--picture assets/presenters/grace.jpg] \
 *     [--variant ok|no-sound|two-faces|no-face] --out consent.mp4
 *
 * English is read by Flite (pocketsphinx, the English recogniser, does not recognise
 * espeak-ng's speech); the other languages by espeak-ng's voice for the language; Filipino,
 * which espeak-ng lacks, by the Indonesian voice. What each variant is: docs/test-videos.md.
 */
import { parseArgs } from 'node:util';
import { scriptOptions } from './args.ts';
import { resolve } from 'node:path';
import { CONSENT_VOICES, makeConsentVideo, type ConsentVariant } from '../test/helpers/avatar-videos.ts';

const VARIANTS: readonly ConsentVariant[] = ['ok', 'no-sound', 'two-faces', 'no-face'];

const usage = 'usage: npx tsx scripts/make-consent-video.ts --text "..." [--language english] [--voice ID] [--picture FILE] [--variant ok|no-sound|two-faces|no-face] --out FILE.mp4';
const values = scriptOptions(
  () =>
    parseArgs({
      options: {
        text: { type: 'string' },
        language: { type: 'string', default: 'english' },
        voice: { type: 'string' },
        picture: { type: 'string' },
        variant: { type: 'string', default: 'ok' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  usage,
);

if (!values.text || !values.out) {
  console.error(usage);
  process.exit(2);
}
const language = values.language!.toLowerCase();
if (!values.voice && !CONSENT_VOICES[language]) {
  console.error(`unknown language '${language}'; one of: ${Object.keys(CONSENT_VOICES).join(', ')}`);
  process.exit(2);
}
if (!VARIANTS.includes(values.variant as ConsentVariant)) {
  console.error(`unknown variant '${values.variant}'; one of: ${VARIANTS.join(', ')}`);
  process.exit(2);
}

const started = Date.now();
const out = resolve(values.out);
await makeConsentVideo({
  text: values.text,
  language,
  ...(values.voice ? { voice: values.voice } : {}),
  ...(values.picture ? { picture: resolve(values.picture) } : {}),
  variant: values.variant as ConsentVariant,
}, out);
console.log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
