import { expect } from 'vitest';
import type { Harness } from '../helpers/harness.ts';
import { HEARD, consentWithPasscode, stored, videoSaying } from '../consents/helpers.ts';
import type { ConsentDetails } from '../../src/consents/kind.ts';

/** A consent verified for real (one person, the statement heard), of the default test picture. */
export async function realConsent(h: Harness, user: { id: string; key: string }): Promise<string> {
  const { id, text } = await consentWithPasscode(h, user.key, 'english', HEARD.passcode);
  const video = await videoSaying(text, HEARD.name);
  const res = await h.call('POST', `/consents/${id}`, { key: user.key, body: { name: HEARD.name, source_url: await stored(h, user.id, video, `consent-${id}.mp4`) } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await h.services.worker.drain();
  const rec = (await h.call('GET', `/consents/${id}`, { key: user.key })).body;
  expect(rec.status, JSON.stringify(rec.verification)).toBe('done');
  return id;
}

export const avatarBody = (consentId: string, source_url: string, over: Record<string, unknown> = {}) => ({
  source_url, name: HEARD.name, gender: 'female', consent_id: consentId, config: { is_greenscreen: 'false' }, ...over,
});

/** A consent of `userId` as verification leaves it (done, for `name`), written through its lifecycle. */
export async function verifiedConsent(h: Harness, userId: string, name = 'Maria Lopez', opts: { status?: 'done' | 'validating'; late?: boolean } = {}): Promise<string> {
  const lifecycle = h.services.modules.consents.deps.lifecycle;
  const id = lifecycle.newId(h.services.newId);
  const now = h.services.clock.now();
  const details: ConsentDetails = {
    language: 'english', text: 'I, [user name], agree ... My passcode is garden pencil river.', passcode: ['garden', 'pencil', 'river'],
    expiresAt: now + 30 * 60_000, name, sourceUrl: 'https://videos.example/c.mp4', uploadedAt: opts.late ? now + 31 * 60_000 : now + 60_000, steps: [],
  };
  await lifecycle.create({ id, userId, request: { language: 'english' }, details, maxAttempts: 1 });
  await lifecycle.moveTo(id, 'validating');
  if ((opts.status ?? 'done') === 'done') await lifecycle.finish(id, { verifiedAt: now });
  return id;
}

