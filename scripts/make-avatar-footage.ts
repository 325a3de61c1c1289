/**
 * Makes premium-plus avatar footage without a camera: a face picture speaks (an English Flite
 * voice, a paragraph rendered once and looped) for most of the video, then stays still and
 * silent for the last seconds (mp4, H.264 + AAC, 25 fps, 512x512).
 *
 *   npx tsx scripts/make-avatar-footage.ts [--picture assets/presenters/grace.jpg] [--minutes 5.5] \
 *     [--silent-ending 40] [--variant ok|short|talking-to-the-end|moving-ending|other-person] --out footage.mp4
 *
 * Use the same picture as the consent video (both default to Grace). What each variant is,
 * and what checks it is meant to pass or fail: docs/test-videos.md.
 */
import { parseArgs } from 'node:util';
import { scriptOptions } from './args.ts';
import { resolve } from 'node:path';
import { makeAvatarFootage, type FootageVariant } from '../test/helpers/avatar-videos.ts';

const VARIANTS: readonly FootageVariant[] = ['ok', 'short', 'talking-to-the-end', 'moving-ending', 'other-person'];

const usage = 'usage: npx tsx scripts/make-avatar-footage.ts [--picture FILE] [--minutes 5.5] [--silent-ending 40] [--variant ok|short|talking-to-the-end|moving-ending|other-person] --out FILE.mp4';
const values = scriptOptions(
  () =>
    parseArgs({
      options: {
        picture: { type: 'string' },
        minutes: { type: 'string' },
        'silent-ending': { type: 'string' },
        variant: { type: 'string', default: 'ok' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  usage,
);

const number = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number, not '${v}'`);
    process.exit(2);
  }
  return n;
};
if (!values.out) {
  console.error(usage);
  process.exit(2);
}
if (!VARIANTS.includes(values.variant as FootageVariant)) {
  console.error(`unknown variant '${values.variant}'; one of: ${VARIANTS.join(', ')}`);
  process.exit(2);
}
const minutes = number('minutes', values.minutes);
const silentEnding = number('silent-ending', values['silent-ending']);

const started = Date.now();
const out = resolve(values.out);
await makeAvatarFootage({
  variant: values.variant as FootageVariant,
  ...(values.picture ? { picture: resolve(values.picture) } : {}),
  ...(minutes !== undefined ? { minutes } : {}),
  ...(silentEnding !== undefined ? { silentEnding } : {}),
}, out);
console.log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
