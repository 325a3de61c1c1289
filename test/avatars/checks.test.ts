/**
 * Footage that must not become an avatar, one per check: too short, talking to the end, a
 * moving ending, another person. Each ends in `error` naming the check, its measured value
 * and its limit; the credits come back, the consent is free again (a failed avatar did not
 * use it up), and the webhook tells of the error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { avatarFootage, type FootageVariant } from '../helpers/avatar-videos.ts';
import { stored } from '../consents/helpers.ts';
import { avatarBody, realConsent } from './helpers.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness;
let receiver: TestServer;
let user: { id: string; key: string };
let consent: string;
beforeAll(async () => {
  receiver = await startTlsServer();
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [receiver.ca] });
  user = h.user({ credits: 20 });
  consent = await realConsent(h, user);
}, 600_000);
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const credits = () => (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(user.id) as { credits: number }).credits;

/** Submits `variant` footage with the one consent; the ended record, after checking the refund and the freed consent. */
async function refused(variant: FootageVariant) {
  const source = await stored(h, user.id, await avatarFootage({ variant }), `${variant}.mp4`);
  const res = await h.call('POST', '/clips/avatars', { key: user.key, body: avatarBody(consent, source, { webhook: `${receiver.url}/${variant}` }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(credits()).toBe(0);
  await h.services.worker.drain();
  const rec = (await h.call('GET', `/clips/avatars/${res.body.id}`, { key: user.key })).body;
  expect(rec.status, JSON.stringify(rec)).toBe('error');
  expect(rec.error.kind).toBe('FootageError');
  expect(credits()).toBe(20);
  expect((await h.call('GET', `/consents/${consent}`, { key: user.key })).body.used_by).toBeNull();
  await h.services.modules.webhooks.dispatcher.runOnce();
  const hook = receiver.received.find((r) => r.path === `/${variant}`);
  expect(JSON.parse(hook!.body.toString())).toMatchObject({ id: rec.id, status: 'error', error: { kind: 'FootageError' } });
  const last = rec.checks.at(-1);
  expect(rec.checks.slice(0, -1).every((c: { passed: boolean }) => c.passed)).toBe(true);
  expect(last.passed).toBe(false);
  expect(rec.error.description).toContain(`'${last.check}'`);
  return { rec, last };
}

describe('avatar footage checks refuse', () => {
  it('footage of 4 minutes (at least 5 are needed)', async () => {
    const { rec, last } = await refused('short');
    expect(last).toMatchObject({ check: 'length', limit: { min_sec: 300 } });
    expect(last.measured.duration_sec).toBeCloseTo(240, 0);
    expect(rec.error.description).toMatch(/is 4 min 0\.\d s long; at least 5 min is needed/);
  }, 600_000);

  it('footage that talks to its end (no silent ending)', async () => {
    const { rec, last } = await refused('talking-to-the-end');
    expect(last).toMatchObject({ check: 'silent_ending', limit: { min_sec: 30 } });
    expect(last.measured.silent_sec).toBeLessThan(5);
    expect(rec.error.description).toMatch(/at least 30 s must be/);
  }, 600_000);

  it('footage whose silent ending moves', async () => {
    const { last } = await refused('moving-ending');
    expect(last.check).toBe('idle_ending');
    expect(last.measured.motion_mean).toBeGreaterThan(last.limit.motion_mean_max);
  }, 600_000);

  it('footage of another person than the consent video\'s', async () => {
    const { rec, last } = await refused('other-person');
    expect(last.check).toBe('same_person');
    expect(last.measured.median_similarity).toBeLessThan(last.limit.review_at_least);
    expect(rec.error.description).toMatch(/not the person in the consent video/);
  }, 600_000);
});
