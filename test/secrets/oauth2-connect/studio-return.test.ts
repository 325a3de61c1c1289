/**
 * Studio attempts (`return_to: 'studio'`): the start sets a cookie binding the attempt to the
 * browser; the callback in that browser ends with a 303 to the studio's page for the attempt
 * (connected, or the reason nothing was stored), and in a browser without the cookie stores
 * nothing (the login-CSRF defence of SECURITY.md). Against the small authorization server of
 * test/helpers/oauth-server.ts on loopback https.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.ts';
import { CANARY } from '../../helpers/canaries.ts';
import { startOAuthServer, type OAuthServer } from '../../helpers/oauth-server.ts';

const CLIENT_ID = 'mimic-client';
const REDIRECT = 'http://mimic.test/secrets/oauth2/callback';
let as: OAuthServer;
let h: Harness;
let user: { id: string; key: string };

beforeAll(async () => {
  as = await startOAuthServer({ clientId: CLIENT_ID, clientSecret: CANARY.clientSecret, redirectUri: REDIRECT });
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [as.server.ca] });
});
afterAll(async () => {
  await h.close();
  await as.close();
});
beforeEach(() => {
  user = h.user();
  Object.assign(as, { consent: 'allow', omitRefresh: false, nextAccess: CANARY.accessToken, nextRefresh: CANARY.refreshToken });
});

const body = (extra: Record<string, unknown> = {}) => ({
  provider: 'calendar', issuer: as.issuer, client_id: CLIENT_ID, client_secret: CANARY.clientSecret, scopes: ['openid', 'offline_access'], return_to: 'studio', ...extra,
});
const cookieOf = (headers: Headers) => /^mimic_oauth=([A-Za-z0-9_-]{43});/.exec(headers.get('set-cookie') ?? '')?.[1];

async function startInStudio(extra: Record<string, unknown> = {}, cookie?: string) {
  const res = await h.call('POST', '/secrets/oauth2/connections', { key: user.key, body: body(extra), headers: cookie ? { cookie: `mimic_oauth=${cookie}` } : {} });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

describe('an attempt started for the studio', () => {
  it('sets a binding cookie (HttpOnly, SameSite=Lax, on /secrets/oauth2/), kept by the next start', async () => {
    const first = await startInStudio();
    const setCookie = first.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Path=\/secrets\/oauth2\//);
    expect(setCookie).toMatch(/Max-Age=600/);
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = cookieOf(first.headers)!;
    expect(cookie).toBeDefined();
    expect(cookieOf((await startInStudio({}, cookie)).headers)).toBe(cookie);
    // An API client (no return_to) gets no cookie.
    const plain = await h.call('POST', '/secrets/oauth2/connections', { key: user.key, body: { ...body(), return_to: undefined } });
    expect(plain.status).toBe(201);
    expect(plain.headers.get('set-cookie')).toBeNull();
    // return_to takes studio only.
    const wrong = await h.call('POST', '/secrets/oauth2/connections', { key: user.key, body: body({ return_to: 'https://evil.test/' }) });
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('in the browser that started it: connected, then 303 to the studio page of the attempt', async () => {
    const started = await startInStudio();
    const cookie = cookieOf(started.headers)!;
    const callback = await as.authorize(started.body.authorization_url);
    const back = await h.call('GET', callback, { headers: { cookie: `mimic_oauth=${cookie}` } });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/studio/secrets/connect?connection=${started.body.id}`);
    expect(back.headers.get('referrer-policy')).toBe('no-referrer');
    const view = (await h.call('GET', `/secrets/oauth2/connections/${started.body.id}`, { key: user.key })).body;
    expect(view).toMatchObject({ status: 'connected' });
    expect(view.secret_id).toMatch(/^sec_/);

    // The same address again (a reload): used, and the studio says so.
    const again = await h.call('GET', callback, { headers: { cookie: `mimic_oauth=${cookie}` } });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/studio/secrets/connect?result=used_state');
  });

  it('a refused consent goes back to the studio page too, which reads why from the attempt', async () => {
    as.consent = 'deny';
    const started = await startInStudio();
    const back = await h.call('GET', await as.authorize(started.body.authorization_url), { headers: { cookie: `mimic_oauth=${cookieOf(started.headers)}` } });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/studio/secrets/connect?connection=${started.body.id}`);
    expect((await h.call('GET', `/secrets/oauth2/connections/${started.body.id}`, { key: user.key })).body).toMatchObject({ status: 'denied', error: 'denied' });
  });

  it('in another browser (no cookie, or another one): nothing stored, a page that says where to finish', async () => {
    for (const headers of [{}, { cookie: `mimic_oauth=${"x".repeat(43)}` }] as Record<string, string>[]) {
      const started = await startInStudio();
      const before = as.tokenRequests().length;
      const page = await h.call('GET', await as.authorize(started.body.authorization_url), { headers });
      expect(page.status).toBe(403);
      expect(page.body).toContain('started in the studio in another browser');
      expect(page.body).toContain('Nothing was stored');
      expect(as.tokenRequests().length, 'the code was not redeemed').toBe(before);
      expect((await h.call('GET', `/secrets/oauth2/connections/${started.body.id}`, { key: user.key })).body).toMatchObject({ status: 'failed', error: 'wrong_browser' });
    }
    expect((await h.call('GET', '/secrets', { key: user.key })).body).toEqual([]);
  });

  it('a reconnect names its secret; an unknown state in a browser with the cookie goes to the studio with the reason', async () => {
    const started = await startInStudio();
    const cookie = cookieOf(started.headers)!;
    await h.call('GET', await as.authorize(started.body.authorization_url), { headers: { cookie: `mimic_oauth=${cookie}` } });
    const secretId = (await h.call('GET', `/secrets/oauth2/connections/${started.body.id}`, { key: user.key })).body.secret_id;
    const reconnect = await startInStudio({ secret_id: secretId }, cookie);
    expect((await h.call('GET', `/secrets/oauth2/connections/${reconnect.body.id}`, { key: user.key })).body).toMatchObject({ status: 'pending', reconnects: secretId });

    const bad = await h.call('GET', '/secrets/oauth2/callback?state=nope&code=x', { headers: { cookie: `mimic_oauth=${cookie}` } });
    expect(bad.status).toBe(303);
    expect(bad.headers.get('location')).toBe('/studio/secrets/connect?result=bad_state');
    // Without the cookie, the plain result page as before.
    expect((await h.call('GET', '/secrets/oauth2/callback?state=nope&code=x')).status).toBe(400);
  });
});

describe('over https', () => {
  it('the binding cookie is __Secure- and Secure, and is read under that name', async () => {
    const redirect = 'https://mimic.test/secrets/oauth2/callback';
    const server = await startOAuthServer({ clientId: CLIENT_ID, clientSecret: CANARY.clientSecret, redirectUri: redirect });
    const secure = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_PUBLIC_URL: 'https://mimic.test' }, { ca: [server.server.ca] });
    try {
      const u = secure.user();
      const started = await secure.call('POST', '/secrets/oauth2/connections', {
        key: u.key,
        body: { provider: 'calendar', issuer: server.issuer, client_id: CLIENT_ID, client_secret: CANARY.clientSecret, scopes: ['openid', 'offline_access'], return_to: 'studio' },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const setCookie = started.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/^__Secure-mimic_oauth=[A-Za-z0-9_-]{43};/);
      expect(setCookie).toMatch(/; Secure/);
      const cookie = /^__Secure-mimic_oauth=([^;]+)/.exec(setCookie)![1];
      const back = await secure.call('GET', await server.authorize(started.body.authorization_url), { headers: { cookie: `__Secure-mimic_oauth=${cookie}` } });
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe(`/studio/secrets/connect?connection=${started.body.id}`);
    } finally {
      await secure.close();
      await server.close();
    }
  });
});
