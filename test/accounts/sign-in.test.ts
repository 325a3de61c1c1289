import { afterEach, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { ORIGIN, csrfOf, signIn, studioClient } from './studio-client.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EMAIL = 'ann@example.org';
const PASSWORD = 'correct horse battery';

describe('studio sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie over http (not Secure), and the session opens the studio', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const client = studioClient(h);
    const res = await client.post('/studio/sign-in', { email: '  Ann@Example.org ', password: PASSWORD, next: '/studio/keys' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/studio/keys');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^mimic_studio=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Secure/i);
    const home = await client.get('/studio/');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain(`Welcome, ${EMAIL}`);
    // The cookie's token is not stored: only its HMAC.
    const token = client.cookie!.split('=')[1]!;
    const rows = JSON.stringify(sqliteOf(h.services.store).sqlite.prepare('SELECT * FROM studio_sessions').all());
    expect(rows).not.toContain(token);
  });

  it('names the cookie __Host-mimic_studio and makes it Secure when the public URL is https', async () => {
    h = harness({ MIMIC_PUBLIC_URL: 'https://studio.example' });
    await person(h, { email: EMAIL, password: PASSWORD });
    const res = await h.app.request('/studio/sign-in', {
      method: 'POST',
      headers: { origin: 'https://studio.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: EMAIL, password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-mimic_studio=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    expect((await h.app.request('/studio/', { headers: { cookie } })).status).toBe(200);
    // The same token under the plain name is not read over https.
    expect((await h.app.request('/studio/', { headers: { cookie: cookie.replace('__Host-', '') } })).status).toBe(303);
  });

  it('answers a wrong password and an unknown email with the same status and page', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const wrong = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: 'not the password' });
    const unknown = await studioClient(h).post('/studio/sign-in', { email: 'bob@example.org', password: 'not the password' });
    expect(wrong.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const a = await wrong.text();
    const b = (await unknown.text()).replaceAll('bob@example.org', EMAIL);
    expect(a).toBe(b);
    expect(a).toContain('Wrong email or password.');
  });

  it('sends a signed-out visitor to sign-in with the page to come back to, and refuses a next that leaves the studio', async () => {
    h = harness();
    const res = await h.app.request('/studio/?x=1');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent('/studio/?x=1')}`);
    await person(h, { email: EMAIL, password: PASSWORD });
    for (const next of ['https://evil.example/', '//evil.example/studio', '/studio\\@evil', '/other']) {
      const r = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD, next });
      expect(r.headers.get('location'), next).toBe('/studio/');
    }
  });

  it('throttles an account after its limit of failures, an unknown email the same way, with Retry-After', async () => {
    h = harness({ MIMIC_SIGN_IN_PER_ACCOUNT: '3', MIMIC_SIGN_IN_PER_ADDRESS: '1000' });
    await person(h, { email: EMAIL, password: PASSWORD });
    for (const email of [EMAIL, 'nobody@example.org']) {
      for (let i = 0; i < 3; i++) expect((await studioClient(h).post('/studio/sign-in', { email, password: 'wrong password' })).status).toBe(200);
      const res = await studioClient(h).post('/studio/sign-in', { email, password: email === EMAIL ? PASSWORD : 'wrong password' });
      expect(res.status, email).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(800);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // Another account from the same address is not affected.
    await person(h, { email: 'cy@example.org', password: PASSWORD });
    expect((await studioClient(h).post('/studio/sign-in', { email: 'cy@example.org', password: PASSWORD })).status).toBe(303);
  });

  it('throttles an address after its limit of failures across accounts; the address comes from a trusted proxy', async () => {
    h = harness({ MIMIC_SIGN_IN_PER_ACCOUNT: '1000', MIMIC_SIGN_IN_PER_ADDRESS: '3', MIMIC_TRUSTED_PROXIES: '10.0.0.1' });
    await person(h, { email: EMAIL, password: PASSWORD });
    const from = (address: string) => ({ incoming: { socket: { remoteAddress: '10.0.0.1' } }, address });
    const via = (client: string) => studioClient(h, from(client));
    const xff = (client: string) => ({ 'x-forwarded-for': `203.0.113.9, ${client}` });
    for (let i = 0; i < 3; i++) expect((await via('a').post('/studio/sign-in', { email: `u${i}@example.org`, password: 'wrong password' }, xff('2001:db8:1:2::5'))).status).toBe(200);
    // The same /64, another host: throttled, even with the right password.
    expect((await via('a').post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, xff('2001:db8:1:2:ffff::9'))).status).toBe(429);
    // Another /64 signs in.
    expect((await via('b').post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, xff('2001:db8:1:3::5'))).status).toBe(303);
  });

  it('refuses a sign-in posted from another site (login CSRF)', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const cross = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as { kind: string }).kind).toBe('PermissionError');
    const site = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'cross-site' });
    expect(site.status).toBe(403);
    const html = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { origin: 'null', accept: 'text/html' });
    expect(html.status).toBe(403);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const sameSite = await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'same-site', origin: 'https://sub.mimic.test' });
    expect(sameSite.status).toBe(403);
    expect((await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'same-origin', origin: ORIGIN })).status).toBe(303);
    // Chromium under Referrer-Policy: no-referrer sends Origin: null on a same-origin form; Sec-Fetch-Site decides.
    expect((await studioClient(h).post('/studio/sign-in', { email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'same-origin', origin: 'null' })).status).toBe(303);
  });

  it('sign-out revokes the session row and clears the cookie', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const client = await signIn(h, EMAIL, PASSWORD);
    const old = client.cookie!;
    const res = await client.post('/studio/sign-out', { _csrf: await csrfOf(h, client) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/studio/sign-in');
    expect(res.headers.get('set-cookie')).toMatch(/^mimic_studio=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);
    const row = sqliteOf(h.services.store).sqlite.prepare('SELECT revoked_at FROM studio_sessions').get() as { revoked_at: number | null };
    expect(row.revoked_at).not.toBeNull();
    // The old cookie, replayed, opens nothing.
    expect((await h.app.request('/studio/', { headers: { cookie: old } })).status).toBe(303);
  });
});
