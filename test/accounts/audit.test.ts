/**
 * A person's sign-ins in their own audit trail (GET /audit?action=account.*): sign-in
 * succeeded and failed, sign-out, a session revoked, the password changed (and a wrong
 * current password), an invite link used. Never the password, the cookie or the email typed;
 * an email with no account has no trail and writes nothing; a throttled attempt writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { invite } from '../../src/accounts/invites.ts';
import { randomId } from '../../src/clock.ts';
import { csrfOf, signIn, studioClient, type StudioClient } from './studio-client.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EMAIL = 'ann@example.org';
const PASSWORD = 'correct horse battery';
const WRONG = 'not my password at all';

async function tokenOf(client: StudioClient): Promise<string> {
  const res = await client.post('/studio/token', {}, { 'x-csrf-token': await csrfOf(h, client) });
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Event { action: string; outcome: string; detail: Record<string, unknown> }
const trail = async (key: string, query = 'action=account.*'): Promise<Event[]> => (await h.call('GET', `/audit?${query}`, { key })).body.events;
const allRows = () => JSON.stringify(sqliteOf(h.services.store).sqlite.prepare('SELECT * FROM audit_events').all());

describe('sign-ins in the audit trail', () => {
  it('records sign-in succeeded and failed, sign-out, a revoked session and a password change, with no credential', async () => {
    h = harness();
    const { key } = await person(h, { email: EMAIL, password: PASSWORD });
    expect((await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: WRONG })).status).toBe(200);
    const laptop = await signIn(h, EMAIL, PASSWORD);
    const phone = await signIn(h, EMAIL, PASSWORD);
    const token = await tokenOf(laptop);
    const sessions = (await h.call('GET', '/account/sessions', { token })).body.sessions as { id: string; current: boolean }[];
    const laptopId = sessions.find((s) => s.current)!.id;
    const cookieToken = laptop.cookie!.split('=')[1]!;
    const phoneId = sessions.find((s) => !s.current)!.id;

    expect((await h.call('DELETE', `/account/sessions/${phoneId}`, { token })).status).toBe(204);
    expect((await h.call('PUT', '/account/password', { token, body: { current_password: WRONG, new_password: 'a brand new password' } })).status).toBe(403);
    expect((await h.call('PUT', '/account/password', { token, body: { current_password: PASSWORD, new_password: 'a brand new password' } })).status).toBe(200);
    expect((await laptop.post('/studio/sign-out', { _csrf: await csrfOf(h, laptop) })).status).toBe(303);
    void phone;

    const events = await trail(key);
    expect(events.map((e) => [e.action, e.outcome])).toEqual([
      ['account.signed_out', 'success'],
      ['account.password_changed', 'success'],
      ['account.password_changed', 'failure'],
      ['account.session_revoked', 'success'],
      ['account.sign_in', 'success'],
      ['account.sign_in', 'success'],
      ['account.sign_in', 'failure'],
    ]);
    expect(events[0]!.detail).toEqual({ session_id: laptopId });
    expect(events[2]!.detail).toEqual({ reason: 'wrong_current_password' });
    expect(events[3]!.detail).toEqual({ session_id: phoneId });
    expect(events[4]!.detail).toMatchObject({ session_id: expect.stringMatching(/^ses_/), address: expect.any(String) });
    expect(events[6]!.detail).toMatchObject({ reason: 'wrong_password', address: expect.any(String) });
    // The family filter and the outcome filter together: the failed sign-in alone.
    expect((await trail(key, 'action=account.sign_in&outcome=failure')).map((e) => e.detail.reason)).toEqual(['wrong_password']);

    const rows = allRows();
    for (const secret of [PASSWORD, WRONG, 'a brand new password', EMAIL, token, cookieToken]) expect(rows).not.toContain(secret);
  });

  it('an email with no account writes no row anywhere; a throttled attempt writes none either', async () => {
    h = harness({ MIMIC_SIGN_IN_PER_ACCOUNT: '2', MIMIC_SIGN_IN_PER_ADDRESS: '1000' });
    const { key } = await person(h, { email: EMAIL, password: PASSWORD });
    expect((await studioClient(h).post('/studio/sign-in', { email: 'nobody@example.org', password: WRONG })).status).toBe(200);
    expect(sqliteOf(h.services.store).sqlite.prepare('SELECT count(*) AS n FROM audit_events').get()).toEqual({ n: 0 });
    for (let i = 0; i < 2; i++) await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: WRONG });
    expect((await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD })).status).toBe(429);
    expect((await trail(key)).map((e) => [e.action, e.outcome])).toEqual([
      ['account.sign_in', 'failure'],
      ['account.sign_in', 'failure'],
    ]);
    expect(allRows()).not.toContain('nobody@example.org');
  });

  it('records an invite link used (type invite), and a failed sign-in of an invited account with no password yet', async () => {
    h = harness();
    const { id, key } = h.user();
    const sent = await invite({ store: h.services.modules.accounts.store, masterKey: h.config.masterKey, publicUrl: h.config.publicUrl, clock: h.services.clock, newId: randomId }, id, EMAIL);
    if (!sent.ok) throw new Error(sent.reason);
    await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD });
    const token = new URL(sent.link).searchParams.get('token')!;
    expect((await studioClient(h).post('/studio/invite', { token, password: PASSWORD, password2: PASSWORD })).status).toBe(303);
    const events = await trail(key);
    expect(events.map((e) => [e.action, e.outcome, e.detail.type ?? e.detail.reason])).toEqual([
      ['account.invite_accepted', 'success', 'invite'],
      ['account.sign_in', 'failure', 'no_password_yet'],
    ]);
    expect(allRows()).not.toContain(token);
  });
});
