import { afterEach, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { invite, resetLink, type InviteDeps } from '../../src/accounts/invites.ts';
import { randomId } from '../../src/clock.ts';
import { signIn, studioClient } from './studio-client.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const PASSWORD = 'correct horse battery';

function deps(h: Harness, clock = h.services.clock): InviteDeps {
  return { store: h.services.modules.accounts.store, masterKey: h.config.masterKey, publicUrl: h.config.publicUrl, clock, newId: randomId };
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

describe('invites and reset links', () => {
  it('an invite link sets the first password once and signs the person in; the link is then spent', async () => {
    h = harness();
    const { id } = h.user();
    const sent = await invite(deps(h), id, ' Ann@Example.org');
    if (!sent.ok) throw new Error(sent.reason);
    expect(sent.email).toBe('ann@example.org');
    expect(sent.link).toMatch(/^http:\/\/mimic\.test\/studio\/invite\?token=[A-Za-z0-9_-]{43}$/);
    // Invited, no password yet: sign-in fails like any wrong password.
    expect((await studioClient(h).post('/studio/sign-in', { email: 'ann@example.org', password: PASSWORD })).status).toBe(200);

    const page = await studioClient(h).get(`/studio/invite?token=${tokenOf(sent.link)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const client = studioClient(h);
    const short = await client.post('/studio/invite', { token: tokenOf(sent.link), password: 'short', password2: 'short' });
    expect(short.status).toBe(400);
    const set = await client.post('/studio/invite', { token: tokenOf(sent.link), password: PASSWORD, password2: PASSWORD });
    expect(set.status).toBe(303);
    expect((await client.get('/studio/')).status).toBe(200);
    const again = await studioClient(h).post('/studio/invite', { token: tokenOf(sent.link), password: 'another password', password2: 'another password' });
    expect(again.status).toBe(400);
    await signIn(h, 'ann@example.org', PASSWORD);
  });

  it('refuses an invite for an email another user has, and re-inviting someone who has a password', async () => {
    h = harness();
    const ann = await person(h, { email: 'ann@example.org', password: PASSWORD });
    const { id } = h.user();
    expect(await invite(deps(h), id, 'ann@example.org')).toEqual({ ok: false, reason: `ann@example.org belongs to user ${ann.id}` });
    expect(await invite(deps(h), ann.id, 'ann@example.org')).toMatchObject({ ok: false, reason: expect.stringMatching(/reset-password/) });
    expect(await invite(deps(h), id, 'not an email')).toMatchObject({ ok: false });
  });

  it('a reset link sets a new password, ends the other sessions, and expires after a day', async () => {
    let t = Date.UTC(2026, 10, 28);
    const clock = { now: () => t };
    h = harness({}, { clock });
    await person(h, { email: 'ann@example.org', password: PASSWORD });
    const old = await signIn(h, 'ann@example.org', PASSWORD);
    const reset = await resetLink(deps(h, clock), 'ann@example.org');
    if (!reset.ok) throw new Error(reset.reason);
    const client = studioClient(h);
    expect((await client.post('/studio/invite', { token: tokenOf(reset.link), password: 'a new password', password2: 'a new password' })).status).toBe(303);
    expect((await old.get('/studio/')).status).toBe(303);
    expect((await client.get('/studio/')).status).toBe(200);

    const late = await resetLink(deps(h, clock), 'ann@example.org');
    if (!late.ok) throw new Error(late.reason);
    t += 24 * 3600 * 1000;
    expect((await studioClient(h).post('/studio/invite', { token: tokenOf(late.link), password: 'third password', password2: 'third password' })).status).toBe(400);
    expect(await resetLink(deps(h, clock), 'nobody@example.org')).toMatchObject({ ok: false });
  });
});
