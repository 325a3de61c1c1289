import type { Harness } from '../helpers/harness.ts';
import { consentVideo, type ConsentVideoOptions } from '../helpers/avatar-videos.ts';
import { readConsent } from '../../src/consents/kind.ts';
import { statementOf } from '../../src/consents/create.ts';
import { findLanguage } from '../../src/consents/languages/index.ts';

/**
 * What the consent and avatar tests share: a consent whose passcode the test chooses (drawn
 * at random otherwise; pocketsphinx hears some word sets from Flite better than others, see
 * docs/speech-checks.md), and a video put in the user's media store as an upload would be.
 */

/** The name and passcode pocketsphinx recognises from Flite's `rms` voice (docs/speech-checks.md). */
export const HEARD = { name: 'Maria Lopez', passcode: ['garden', 'pencil', 'river'], voice: 'en-US-flite-rms' } as const;

export async function consentWithPasscode(h: Harness, key: string, language: string, passcode: readonly string[]): Promise<{ id: string; text: string }> {
  const made = (await h.call('POST', '/consents', { key, body: { language } })).body as { id: string };
  const lifecycle = h.services.modules.consents.deps.lifecycle;
  const c = readConsent((await lifecycle.getById(made.id))!);
  const text = statementOf(findLanguage(language)!, passcode);
  await lifecycle.setDetails(made.id, { ...c.details, passcode: [...passcode], text });
  return { id: made.id, text };
}

/** The video in the user's media store; answers its storage-scheme URL. */
export async function stored(h: Harness, userId: string, file: string, name: string): Promise<string> {
  await h.services.media.putFile(userId, `uploads/${name}`, file, 'video/mp4');
  return `${h.config.storageScheme}://uploads/${name}`;
}

/** A consent video saying `text` with `[user name]` replaced by `spokenName`. */
export const videoSaying = (text: string, spokenName: string, opts: Omit<ConsentVideoOptions, 'text'> = {}) =>
  consentVideo({ voice: HEARD.voice, ...opts, text: text.replace('[user name]', spokenName) });
