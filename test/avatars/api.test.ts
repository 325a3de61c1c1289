/**
 * POST /clips/avatars and its records, without footage work (the checks and training:
 * create.test.ts): the consent rules (verified, yours, same name, in time, once), credits,
 * lists, deletion and tenancy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { verifiedConsent } from './helpers.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const body = (consentId: string, over: Record<string, unknown> = {}) => ({
  source_url: 'https://videos.example/footage.mp4', name: 'Maria Lopez', gender: 'female', consent_id: consentId, config: { is_greenscreen: 'false' }, ...over,
});
const credits = (h: Harness, id: string) => (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;

describe('POST /clips/avatars', () => {
  it('answers every field of the interface, charges its credits and uses its consent up', async () => {
    h = harness();
    const u = h.user({ credits: 50 });
    const consent = await verifiedConsent(h, u.id);
    const res = await h.call('POST', '/clips/avatars', { key: u.key, body: body(consent, { name: 'maria  lopez', webhook: 'https://hooks.example/a' }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    for (const f of ['id', 'status', 'name', 'gender', 'created_at', 'owner_id', 'created_by', 'presenter_id', 'driver_id']) expect(typeof res.body[f], f).toBe('string');
    expect(res.body).toMatchObject({ status: 'created', name: 'maria lopez', gender: 'female', owner_id: u.id, created_by: u.id, consent_id: consent, config: { is_greenscreen: false }, credits: 20, checks: [] });
    expect(res.body.id).toMatch(/^avt_/);
    expect(res.body.presenter_id).toMatch(/^maria-lopez-[A-Za-z0-9]{10}$/);
    expect(res.body.driver_id).toBe(`${res.body.presenter_id}-idle`);
    expect(credits(h, u.id)).toBe(30);
    expect((await h.call('GET', `/consents/${consent}`, { key: u.key })).body.used_by).toBe(res.body.id);
    expect((await h.call('GET', `/clips/avatars/${res.body.id}`, { key: u.key })).body).toMatchObject({ id: res.body.id, status: 'created' });

    // Used once: a second avatar with it is refused, nothing charged.
    const again = await h.call('POST', '/clips/avatars', { key: u.key, body: body(consent) });
    expect([again.status, again.body.kind]).toEqual([400, 'ConsentError']);
    expect(again.body.description).toMatch(/used already/);
    expect(credits(h, u.id)).toBe(30);
  });

  it('refuses a consent that is not verified, was uploaded late, names someone else, or is another user\'s', async () => {
    h = harness();
    const u = h.user({ credits: 50 }), other = h.user({ credits: 50 });
    const pending = await verifiedConsent(h, u.id, 'Maria Lopez', { status: 'validating' });
    const late = await verifiedConsent(h, u.id, 'Maria Lopez', { late: true });
    const done = await verifiedConsent(h, u.id);
    const fresh = (await h.call('POST', '/consents', { key: u.key, body: { language: 'english' } })).body.id;
    const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
      ['validating', body(pending), 400, 'ConsentError', /being verified/],
      ['created', body(fresh), 400, 'ConsentError', /waiting for its video/],
      ['late', body(late), 400, 'ConsentError', /after the consent expired/],
      ['other name', body(done, { name: 'John Smith' }), 400, 'ConsentError', /Maria Lopez/],
      ['missing', body('cns_nothing'), 404, 'NotFoundError', /Consent/],
    ];
    for (const [what, b, status, kind, text] of cases) {
      const res = await h.call('POST', '/clips/avatars', { key: u.key, body: b });
      expect([what, res.status, res.body.kind], JSON.stringify(res.body)).toEqual([what, status, kind]);
      expect(res.body.description).toMatch(text);
    }
    const stolen = await h.call('POST', '/clips/avatars', { key: other.key, body: body(done) });
    expect([stolen.status, stolen.body.kind]).toEqual([404, 'NotFoundError']);
    expect([credits(h, u.id), credits(h, other.id)]).toEqual([50, 50]);
    expect((await h.call('GET', `/consents/${done}`, { key: u.key })).body.used_by).toBeNull();
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    h = harness();
    const u = h.user({ credits: 50 });
    const consent = await verifiedConsent(h, u.id);
    for (const b of [body(consent, { gender: 'robot' }), body(consent, { source_url: 'ftp://x/y.mp4' }), body(consent, { name: ' ' }), body(consent, { webhook: 'http://h.example' }), body(consent, { config: { is_greenscreen: 'maybe' } }), body(consent, { extra: 1 }), { name: 'x' }]) {
      const res = await h.call('POST', '/clips/avatars', { key: u.key, body: b });
      expect(res.status, JSON.stringify(b)).toBe(400);
    }
    expect(credits(h, u.id)).toBe(50);
  });

  it('is 402 without the credits, and the consent stays free', async () => {
    h = harness();
    const u = h.user({ credits: 19 });
    const consent = await verifiedConsent(h, u.id);
    const res = await h.call('POST', '/clips/avatars', { key: u.key, body: body(consent) });
    expect([res.status, res.body.kind]).toEqual([402, 'InsufficientCreditsError']);
    expect((await h.call('GET', `/consents/${consent}`, { key: u.key })).body.used_by).toBeNull();
  });

  it('of two requests racing for one consent, exactly one makes an avatar', async () => {
    h = harness();
    const u = h.user({ credits: 100 });
    const consent = await verifiedConsent(h, u.id);
    const both = await Promise.all([h.call('POST', '/clips/avatars', { key: u.key, body: body(consent) }), h.call('POST', '/clips/avatars', { key: u.key, body: body(consent) })]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(credits(h, u.id)).toBe(80);
  });
});

describe('avatar records', () => {
  it('are listed newest first, shown and deleted only to their owner; deleting an unfinished one refunds it and frees its consent', async () => {
    h = harness();
    const u = h.user({ credits: 100 }), other = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.call('POST', '/clips/avatars', { key: u.key, body: body(await verifiedConsent(h, u.id)) })).body.id);
    expect(credits(h, u.id)).toBe(40);
    const p1 = (await h.call('GET', '/clips/avatars?limit=2', { key: u.key })).body;
    expect(p1.avatars.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const p2 = (await h.call('GET', `/clips/avatars?limit=2&token=${p1.token}`, { key: u.key })).body;
    expect(p2.avatars.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    for (const method of ['GET', 'DELETE']) expect((await h.call(method, `/clips/avatars/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await h.call('GET', '/clips/avatars', { key: other.key })).body.avatars).toEqual([]);
    const removed = (await h.call('DELETE', `/clips/avatars/${ids[0]}`, { key: u.key })).body;
    expect(credits(h, u.id)).toBe(60);
    expect((await h.call('GET', `/consents/${removed.consent_id}`, { key: u.key })).body.used_by).toBeNull();
    expect((await h.call('GET', `/clips/avatars/${ids[0]}`, { key: u.key })).status).toBe(404);
    expect(sqliteOf(h.services.store).sqlite.prepare("SELECT count(*) AS n FROM jobs WHERE resource_id = ? AND status IN ('queued', 'running')").get(ids[0])).toEqual({ n: 0 });
  });
});
