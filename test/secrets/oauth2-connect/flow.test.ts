import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.ts';
import { CANARY } from '../../helpers/canaries.ts';
import { makeSecret, makeTool, toolBody } from '../../helpers/tools.ts';
import { startOAuthServer, type OAuthServer } from '../../helpers/oauth-server.ts';
import { importOAuth2Grant } from '../../../src/secrets/oauth2-import.ts';

/**
 * Connecting an account by API, end to end: mimic against a small real authorization server
 * on loopback https (test/helpers/oauth-server.ts: discovery, PKCE S256 enforced, single-use
 * codes, iss in the response, a signed ID token with the nonce, rotating refresh tokens). The
 * harness fails the run if a planted credential reaches a response, a log line, an audit row
 * or the database file in clear.
 */
const CLIENT_ID = 'mimic-client';
const REDIRECT = 'http://mimic.test/secrets/oauth2/callback';
let as: OAuthServer;
let h: Harness;
let user: { id: string; key: string };
let offset = 0;

beforeAll(async () => {
  as = await startOAuthServer({ clientId: CLIENT_ID, clientSecret: CANARY.clientSecret, redirectUri: REDIRECT });
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_TOOL_TIMEOUT_MS: '60000' }, { ca: [as.server.ca], clock: { now: () => Date.now() + offset } });
});
afterAll(async () => {
  await h.close();
  await as.close();
});
beforeEach(() => {
  user = h.user();
  offset = 0;
  as.server.received.length = 0;
  Object.assign(as, { consent: 'allow', omitRefresh: false, forgeNonce: undefined, publicClient: false, pkceMethods: ['S256'], tokenFailure: undefined, nextAccess: CANARY.accessToken, nextRefresh: CANARY.refreshToken, access: undefined, refresh: undefined });
});

const start = (body: Record<string, unknown> = {}, key = user.key) =>
  h.call('POST', '/secrets/oauth2/connections', {
    key,
    body: { provider: 'calendar', issuer: as.issuer, client_id: CLIENT_ID, client_secret: CANARY.clientSecret, scopes: ['openid', 'offline_access', 'calendar'], ...body },
  });
const connection = (id: string, key = user.key) => h.call('GET', `/secrets/oauth2/connections/${id}`, { key });
const secrets = async () => (await h.call('GET', '/secrets', { key: user.key })).body as { id: string; type: string; status: string }[];
const actions = async () => ((await h.call('GET', '/audit?limit=100', { key: user.key })).body.events as { action: string; outcome: string; secret_id?: string; detail: { reason?: string } }[]);
const form = (i = 0) => new URLSearchParams(as.tokenRequests()[i]!.body.toString());

/** Starts an attempt and follows its authorization URL at the provider: the callback path, ready to GET on mimic. */
async function consent(body: Record<string, unknown> = {}): Promise<{ id: string; callback: string; authorization: URL }> {
  const started = await start(body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return { id: started.body.id, callback: await as.authorize(started.body.authorization_url), authorization: new URL(started.body.authorization_url) };
}

/** Nothing of a failed attempt is stored: no secret, no secret.created row, the attempt ended with `error`. */
async function expectNothingStored(id: string, status: string, error: string): Promise<void> {
  expect(await secrets()).toEqual([]);
  const events = await actions();
  expect(events.filter((e) => e.action === 'secret.created')).toEqual([]);
  expect(events.find((e) => e.action === 'secret.connect')).toMatchObject({ outcome: 'failure', detail: { reason: error } });
  const view = (await connection(id)).body;
  expect(view).toMatchObject({ id, status, error });
  expect(view.secret_id).toBeUndefined();
}

describe('connecting an account by API', () => {
  it('discovers the provider, sends PKCE S256, state and nonce, stores the grant, and a tool uses it at once', async () => {
    const started = await start();
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'pending', redirect_uri: REDIRECT });
    expect(Date.parse(started.body.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    const url = new URL(started.body.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${as.issuer}/authorize`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ client_id: CLIENT_ID, redirect_uri: REDIRECT, response_type: 'code', code_challenge_method: 'S256', scope: 'openid offline_access calendar', prompt: 'consent' });
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(q.nonce).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(q.client_secret).toBeUndefined();
    expect((await connection(started.body.id)).body).toMatchObject({ status: 'pending', provider: 'calendar', issuer: as.issuer, scopes: ['openid', 'offline_access', 'calendar'] });

    const page = await h.call('GET', await as.authorize(started.body.authorization_url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('Account connected');

    // The code was redeemed once, with the verifier whose S256 hash was the challenge, at the one redirect URI.
    expect(as.tokenRequests()).toHaveLength(1);
    expect(form().get('grant_type')).toBe('authorization_code');
    expect(form().get('redirect_uri')).toBe(REDIRECT);
    expect(createHash('sha256').update(form().get('code_verifier')!).digest('base64url')).toBe(q.code_challenge);

    const view = (await connection(started.body.id)).body;
    expect(view).toMatchObject({ status: 'connected' });
    expect(view.secret_id).toMatch(/^sec_/);
    expect(page.body).toContain(view.secret_id);
    const secret = (await h.call('GET', `/secrets/${view.secret_id}`, { key: user.key })).body;
    expect(secret).toMatchObject({ id: view.secret_id, type: 'oauth2', provider: 'calendar', status: 'active' });

    const tool = await makeTool(h, user.key, toolBody(`${as.issuer}/events`, { secretId: view.secret_id }));
    const call = await h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });
    expect(call.body.output?.status, JSON.stringify(call.body)).toBe(200);
    expect(as.apiRequests().at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.accessToken}`);

    const events = await actions();
    expect(events.find((e) => e.action === 'secret.connect')).toMatchObject({ outcome: 'success', secret_id: view.secret_id });
    expect(events.find((e) => e.action === 'secret.created')).toMatchObject({ secret_id: view.secret_id });
    await h.call('DELETE', `/tools/${tool}`, { key: user.key });
    await h.call('DELETE', `/secrets/${view.secret_id}`, { key: user.key });
  });

  it('a refused consent: a clear page, nothing stored', async () => {
    as.consent = 'deny';
    const { id, callback } = await consent();
    const page = await h.call('GET', callback);
    expect(page.status).toBe(403);
    expect(page.body).toContain('You did not allow access at calendar');
    expect(page.body).toContain('Nothing was stored');
    expect(as.tokenRequests()).toHaveLength(0);
    await expectNothingStored(id, 'denied', 'denied');
  });

  it('a state works once: a replayed callback, a wrong state and no state store nothing more', async () => {
    const { id, callback } = await consent();
    // Two deliveries of the same callback at once: exactly one redeems the code.
    const [a, b] = await Promise.all([h.call('GET', callback), h.call('GET', callback)]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect([a, b].find((r) => r.status === 400)!.body).toContain('Already used');
    const again = await h.call('GET', callback);
    expect(again.status).toBe(400);
    expect(again.body).toContain('Already used');
    expect(as.tokenRequests()).toHaveLength(1);
    const stored = await secrets();
    expect(stored).toHaveLength(1);
    expect((await connection(id)).body).toMatchObject({ status: 'connected', secret_id: stored[0]!.id });

    const wrong = new URL(callback, 'http://mimic.test');
    wrong.searchParams.set('state', 'not-a-state-of-ours-0123456789abcdef');
    const forged = await h.call('GET', `${wrong.pathname}${wrong.search}`);
    expect(forged.status).toBe(400);
    expect(forged.body).toContain('Unknown connection attempt');
    const bare = await h.call('GET', '/secrets/oauth2/callback?code=abc');
    expect(bare.status).toBe(400);
    expect(bare.body).toContain('Unknown connection attempt');
    // With no parameter at all it is someone looking at the redirect URI: what it is for.
    const about = await h.call('GET', '/secrets/oauth2/callback');
    expect(about.status).toBe(200);
    expect(about.body).toContain('redirect URI');
    expect(as.tokenRequests()).toHaveLength(1);
    expect(await secrets()).toHaveLength(1);
    await h.call('DELETE', `/secrets/${stored[0]!.id}`, { key: user.key });
  });

  it('an expired attempt: the code is not redeemed and nothing is stored', async () => {
    const { id, callback } = await consent();
    offset = 10 * 60_000 + 1;
    expect((await connection(id)).body).toMatchObject({ status: 'expired', error: 'expired' });
    const page = await h.call('GET', callback);
    expect(page.status).toBe(400);
    expect(page.body).toContain('The connection attempt expired');
    expect(as.tokenRequests()).toHaveLength(0);
    await expectNothingStored(id, 'expired', 'expired');
    // And it stays expired, however often the address is opened.
    expect((await h.call('GET', callback)).body).toContain('The connection attempt expired');
  });

  it('a provider error at the token endpoint: a clear page with its error code, nothing stored', async () => {
    as.tokenFailure = { status: 400, body: { error: 'invalid_scope', error_description: '<script>alert(1)</script>' } };
    const { id, callback } = await consent();
    const page = await h.call('GET', callback);
    expect(page.status).toBe(502);
    expect(page.body).toContain('The provider refused');
    expect(page.body).toContain('(error invalid_scope)');
    expect(page.body).not.toContain('<script');
    await expectNothingStored(id, 'failed', 'provider_error');
  });

  it('a provider error in the redirect: nothing stored', async () => {
    const { id } = await consent();
    const view = await connection(id);
    expect(view.body.status).toBe('pending');
    // The provider redirects with an error instead of a code (the state is the one it was given).
    const started = await start();
    const state = new URL(started.body.authorization_url).searchParams.get('state')!;
    const page = await h.call('GET', `/secrets/oauth2/callback?state=${state}&error=server_error&error_description=%3Cb%3Ex%3C%2Fb%3E`);
    expect(page.status).toBe(502);
    expect(page.body).toContain('(error server_error)');
    expect(page.body).not.toContain('<b>');
    expect(await secrets()).toEqual([]);
    expect((await connection(started.body.id)).body).toMatchObject({ status: 'failed', error: 'provider_error' });
  });

  it('an ID token whose nonce is not the one sent is refused: nothing stored', async () => {
    as.forgeNonce = 'a-nonce-from-another-attempt';
    const { id, callback } = await consent();
    const page = await h.call('GET', callback);
    expect(page.status).toBe(502);
    expect(page.body).toContain('Unusable answer');
    expect(as.tokenRequests()).toHaveLength(1);
    await expectNothingStored(id, 'failed', 'invalid_response');
  });

  it('no refresh token issued: a page saying so, nothing stored', async () => {
    as.omitRefresh = true;
    const { id, callback } = await consent();
    const page = await h.call('GET', callback);
    expect(page.status).toBe(502);
    expect(page.body).toContain('No refresh token');
    await expectNothingStored(id, 'failed', 'no_refresh_token');
  });

  it('reconnects an existing secret that needs re-authorization: same id, new grant, tools work again', async () => {
    const old = await importOAuth2Grant(h.services.modules.secrets.deps, {
      userId: user.id, provider: 'calendar', tokenUrl: `${as.issuer}/token`, clientId: CLIENT_ID, clientSecret: CANARY.clientSecret,
      accessToken: 'old-access-token', refreshToken: 'old-refresh-token', expiresIn: 0,
    });
    const tool = await makeTool(h, user.key, toolBody(`${as.issuer}/events`, { secretId: old.id }));
    // The provider revoked the old refresh token: the call fails and the secret needs re-authorization.
    const failed = await h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });
    expect(JSON.stringify(failed.body)).toMatch(/reauthori/i);
    expect((await h.call('GET', `/secrets/${old.id}`, { key: user.key })).body.status).toBe('needs_reauthorization');

    as.nextAccess = CANARY.refreshedAccess;
    as.nextRefresh = CANARY.refreshedRefresh;
    const { id, callback } = await consent({ secret_id: old.id });
    const page = await h.call('GET', callback);
    expect(page.status).toBe(200);
    expect(page.body).toContain('connected again');
    expect((await connection(id)).body).toMatchObject({ status: 'connected', secret_id: old.id });
    expect((await h.call('GET', `/secrets/${old.id}`, { key: user.key })).body.status).toBe('active');
    const call = await h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });
    expect(call.body.output?.status, JSON.stringify(call.body)).toBe(200);
    expect(as.apiRequests().at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.refreshedAccess}`);
    expect((await actions()).filter((e) => e.secret_id === old.id).map((e) => e.action)).toContain('secret.updated');
    await h.call('DELETE', `/tools/${tool}`, { key: user.key });
    await h.call('DELETE', `/secrets/${old.id}`, { key: user.key });
  });

  it('with endpoint URLs and client_secret_basic: no nonce, Basic at the code exchange and at every refresh', async () => {
    const { id, callback, authorization } = await consent({
      issuer: undefined, authorization_url: `${as.issuer}/authorize`, token_url: `${as.issuer}/token`, scopes: ['offline_access'], token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(authorization.searchParams.get('nonce')).toBeNull();
    expect((await h.call('GET', callback)).status).toBe(200);
    expect(as.tokenRequests()[0]!.headers.authorization).toMatch(/^Basic /);
    expect(form().get('client_secret')).toBeNull();
    const secretId = (await connection(id)).body.secret_id as string;
    // Two hours later the access token has expired: the refresher authenticates the same way.
    offset = 2 * 3600_000;
    const tool = await makeTool(h, user.key, toolBody(`${as.issuer}/events`, { secretId }));
    const call = await h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });
    expect(call.body.output?.status, JSON.stringify(call.body)).toBe(200);
    expect(as.tokenRequests()).toHaveLength(2);
    expect(form(1).get('grant_type')).toBe('refresh_token');
    expect(as.tokenRequests()[1]!.headers.authorization).toMatch(/^Basic /);
    await h.call('DELETE', `/tools/${tool}`, { key: user.key });
    await h.call('DELETE', `/secrets/${secretId}`, { key: user.key });
  });

  it('a public client (no client secret): PKCE alone at the code exchange and at every refresh', async () => {
    as.publicClient = true;
    const { id, callback } = await consent({ client_secret: undefined });
    expect((await h.call('GET', callback)).status).toBe(200);
    expect(form().get('client_id')).toBe(CLIENT_ID);
    expect(form().get('client_secret')).toBeNull();
    expect(as.tokenRequests()[0]!.headers.authorization).toBeUndefined();
    const secretId = (await connection(id)).body.secret_id as string;
    offset = 2 * 3600_000;
    const tool = await makeTool(h, user.key, toolBody(`${as.issuer}/events`, { secretId }));
    const call = await h.call('POST', `/tools/${tool}/calls`, { key: user.key, body: { input: { city: 'Oslo' } } });
    expect(call.body.output?.status, JSON.stringify(call.body)).toBe(200);
    expect(form(1).get('grant_type')).toBe('refresh_token');
    expect(form(1).get('client_secret')).toBeNull();
  });

  it('refuses an issuer that does not offer PKCE with S256', async () => {
    as.pkceMethods = ['plain'];
    const res = await start();
    expect(res.status).toBe(400);
    expect(res.body.description).toMatch(/does not support PKCE with S256/);
    expect(await secrets()).toEqual([]);
  });

  it('refuses bad requests with a clear error and stores nothing', async () => {
    const bearer = await makeSecret(h, user.key, { type: 'bearer', provider: 'x', token: CANARY.bearer });
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ issuer: 'http://localhost:1/' }, 400, /issuer/],
      [{ token_url: `${as.issuer}/token` }, 400, /issuer excludes/],
      [{ issuer: undefined }, 400, /authorization_url is required/],
      [{ issuer: undefined, authorization_url: `${as.issuer}/authorize`, token_url: 'https://127.0.0.1:9/token' }, 400, /token_url is refused by the egress policy/],
      [{ issuer: `${as.issuer}/elsewhere` }, 400, /could not be discovered/],
      [{ client_secret: undefined, token_endpoint_auth_method: 'client_secret_post' }, 400, /client_secret is required/],
      [{ token_endpoint_auth_method: 'none' }, 400, /client_secret must be absent/],
      [{ secret_id: 'sec_nope' }, 404, /Secret not found/],
      [{ secret_id: bearer }, 400, /only an oauth2 secret/],
      [{ scopes: 'openid' }, 400, /scopes/],
      [{ extra: 1 }, 400, /extra/],
    ];
    for (const [body, status, message] of cases) {
      const res = await start(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.description, JSON.stringify(body)).toMatch(message);
    }
    expect((await secrets()).map((s) => s.id)).toEqual([bearer]);
    await h.call('DELETE', `/secrets/${bearer}`, { key: user.key });
  });

  it("another user's connection is not found", async () => {
    const { id } = await consent();
    const other = h.user();
    expect((await connection(id, other.key)).status).toBe(404);
    expect((await connection(id)).status).toBe(200);
    // Starting and reading attempts need an API key; only the callback is public.
    expect((await h.call('POST', '/secrets/oauth2/connections', { body: {} })).status).toBe(401);
    expect((await h.call('GET', `/secrets/oauth2/connections/${id}`)).status).toBe(401);
  });
});
