import { afterAll, beforeAll } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import type { ServiceOptions } from '../../src/services.ts';
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

/**
 * One harness for a test file, with a loopback https receiver its webhooks may reach
 * (allowed explicitly: the default refuses loopback), both closed after the file.
 */
export function webhookSuite(opts: ServiceOptions = {}) {
  const state = {} as { h: Harness; receiver: TestServer };
  beforeAll(async () => {
    state.receiver = await startTlsServer();
    state.h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [state.receiver.ca], ...opts });
  });
  afterAll(async () => {
    await state.h?.close();
    await state.receiver?.close();
  });
  return state;
}
