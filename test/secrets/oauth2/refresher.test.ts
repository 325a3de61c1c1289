import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ReauthorizationRequired, RefreshFailed } from '../../../src/secrets/oauth2/errors.ts';
import { tryLock, unlock } from '../../../src/secrets/oauth2/lock.ts';
import type { TokenStore } from '../../../src/secrets/oauth2/token-store.ts';
import { CLIENT_ID, CLIENT_SECRET, USER_ID, createFixture, form, manualClock, startTokenEndpoint, type Fixture, type TokenEndpoint } from './fixtures.ts';
import { rejectionOf } from '../../helpers/rejection.ts';

let endpoint: TokenEndpoint;
let fx: Fixture;

/** Nothing secret may reach a log line or an error message. */
function expectNoLeak(...texts: string[]): void {
  for (const text of texts) {
    for (const canary of [CLIENT_SECRET, 'rt-0', 'rt-1', 'at-0', 'at-1']) expect(text).not.toContain(canary);
  }
}

beforeAll(async () => {
  endpoint = await startTokenEndpoint();
});
beforeEach(() => {
  fx = createFixture(endpoint);
});
afterEach(async () => {
  await fx.close();
  endpoint.server.received.length = 0;
  Object.assign(endpoint, { validRefreshToken: 'rt-0', issued: 0, generation: endpoint.generation + 1, delayMs: 50, rotate: true, override: undefined });
});
afterAll(async () => {
  await endpoint.server.close();
});

describe('accessTokenFor', () => {
  it('returns a token that is not near expiry without asking the token endpoint', async () => {
    fx.addSecret('sec_valid', { expiresAt: Date.now() + 10 * 60_000 });
    fx.addSecret('sec_unknown', { accessToken: 'at-forever', expiresAt: null });
    const refresher = fx.refresher();
    expect(await refresher.accessTokenFor('sec_valid')).toBe('at-0');
    expect(await refresher.accessTokenFor('sec_unknown')).toBe('at-forever');
    expect(endpoint.requests()).toHaveLength(0);
  });

  it('refreshes a token inside the skew window once, with a conform refresh_token grant, and saves the tokens', async () => {
    fx.addSecret('sec_1', { expiresAt: Date.now() + 30_000 });
    const before = Date.now();
    expect(await fx.refresher().accessTokenFor('sec_1')).toBe('at-1');

    const [req] = endpoint.requests();
    expect(endpoint.requests()).toHaveLength(1);
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(form(req!))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt-0',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    const saved = fx.tokens.grants.get('sec_1')!;
    expect(saved).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1', version: 2, status: 'active' });
    expect(saved.expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(saved.expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(fx.events).toEqual([{ secretId: 'sec_1', userId: USER_ID, outcome: 'success' }]);
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
    expectNoLeak(...fx.logs);
  });

  it('authenticates with HTTP Basic when the grant asks for client_secret_basic', async () => {
    fx.addSecret('sec_1', { clientAuthMethod: 'client_secret_basic' });
    expect(await fx.refresher().accessTokenFor('sec_1')).toBe('at-1');
    const [req] = endpoint.requests();
    expect(req!.headers.authorization).toMatch(/^Basic /);
    expect(form(req!).get('client_secret')).toBeNull();
  });

  it('keeps the old refresh token when the response has none, and stores null expiry without expires_in', async () => {
    fx.addSecret('sec_1');
    endpoint.override = (_req, res) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'at-new', token_type: 'bearer' }));
    expect(await fx.refresher().accessTokenFor('sec_1')).toBe('at-new');
    expect(fx.tokens.grants.get('sec_1')).toMatchObject({ accessToken: 'at-new', refreshToken: 'rt-0', expiresAt: null });
  });

  it('ignores an id_token whose issuer is not the token URL’s origin (as with Google or Microsoft)', async () => {
    fx.addSecret('sec_1');
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'RS256' })}.${part({ iss: 'https://accounts.example', aud: CLIENT_ID, sub: 'u', iat: 1, exp: 2 ** 31 })}.c2ln`;
    endpoint.override = (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: 'at-oidc', token_type: 'Bearer', expires_in: 60, id_token: idToken }));
    expect(await fx.refresher().accessTokenFor('sec_1')).toBe('at-oidc');
  });

  it('authenticates a public client (no secret) with its client_id only', async () => {
    fx.addSecret('sec_1', { clientSecret: '' });
    endpoint.override = (_req, res) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'at-public', token_type: 'Bearer' }));
    expect(await fx.refresher().accessTokenFor('sec_1')).toBe('at-public');
    const [req] = endpoint.requests();
    expect(Object.fromEntries(form(req!))).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-0', client_id: CLIENT_ID });
    expect(req!.headers.authorization).toBeUndefined();
  });

  it('gives 50 concurrent callers one refresh', async () => {
    fx.addSecret('sec_1');
    const refresher = fx.refresher();
    const results = await Promise.all(Array.from({ length: 50 }, () => refresher.accessTokenFor('sec_1')));
    expect(new Set(results)).toEqual(new Set(['at-1']));
    expect(endpoint.requests()).toHaveLength(1);
    expect(fx.tokens.saves).toBe(1);
    // Callers in one process share the flight instead of each polling the database for the lock.
    expect(fx.tokens.reads).toBeLessThanOrEqual(50 + 1);
  });

  it('gives two processes with 25 concurrent callers each one refresh between them', async () => {
    fx.addSecret('sec_1');
    const [one, two] = [fx.refresher({ waitMs: 5 }), fx.refresher({ waitMs: 5 })];
    expect(fx.stores).toHaveLength(2);
    const calls = Array.from({ length: 25 }, () => [one!.accessTokenFor('sec_1'), two!.accessTokenFor('sec_1')]).flat();
    const results = await Promise.all(calls);
    expect(new Set(results)).toEqual(new Set(['at-1']));
    expect(endpoint.requests()).toHaveLength(1);
    expect(fx.tokens.saves).toBe(1);
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
  });
});

describe('refresh failures', () => {
  it('marks the secret on invalid_grant, and later calls fail fast without a request', async () => {
    fx.addSecret('sec_1', { refreshToken: 'rt-revoked' });
    const refresher = fx.refresher();
    const err = await rejectionOf(refresher.accessTokenFor('sec_1'), ReauthorizationRequired);
    expect(err.secretId).toBe('sec_1');
    expect(fx.tokens.grants.get('sec_1')!.status).toBe('needs_reauthorization');
    expect(fx.events).toEqual([{ secretId: 'sec_1', userId: USER_ID, outcome: 'failure', reason: 'invalid_grant' }]);
    expect(endpoint.requests()).toHaveLength(1);

    await rejectionOf(refresher.accessTokenFor('sec_1'), ReauthorizationRequired);
    await rejectionOf(fx.refresher().accessTokenFor('sec_1'), ReauthorizationRequired);
    await rejectionOf(refresher.refreshAfterRejection('sec_1', 'at-0'), ReauthorizationRequired);
    expect(endpoint.requests()).toHaveLength(1);
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
  });

  it('turns a 5xx into RefreshFailed naming the host only, releases the lock, and tries again on the next call', async () => {
    fx.addSecret('sec_1');
    // A server that echoes the request: its body must not travel into our errors or logs.
    endpoint.override = (req, res) => void res.writeHead(503, { 'content-type': 'text/plain' }).end(req.body);
    const refresher = fx.refresher();
    const err = await rejectionOf(refresher.accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('http_503');
    expect(err.host).toBe('localhost');
    expect(err.message).toContain('localhost');
    expect(err.message).not.toContain('/oauth/token');
    expectNoLeak(err.message, String(err.stack), ...fx.logs, JSON.stringify(fx.events));
    expect(fx.lockOf('sec_1')).toEqual({ lock_owner: null, lock_until: null });
    expect(fx.tokens.grants.get('sec_1')).toMatchObject({ accessToken: 'at-0', refreshToken: 'rt-0', status: 'active' });
    expect(fx.events).toEqual([{ secretId: 'sec_1', userId: USER_ID, outcome: 'failure', reason: 'http_503' }]);

    endpoint.override = undefined;
    expect(await refresher.accessTokenFor('sec_1')).toBe('at-1');
    expect(endpoint.requests()).toHaveLength(2);
  });

  it('does not follow a redirect from the token endpoint', async () => {
    fx.addSecret('sec_1');
    endpoint.override = (_req, res) => void res.writeHead(302, { location: `${endpoint.server.url}/elsewhere` }).end();
    const err = await rejectionOf(fx.refresher().accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('http_302');
    expect(endpoint.server.received).toHaveLength(1);
  });

  it('fails with reason timeout when the token endpoint does not answer in time', async () => {
    fx.addSecret('sec_1');
    endpoint.delayMs = 2000;
    const err = await rejectionOf(fx.refresher({ timeoutMs: 200 }).accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('timeout');
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
  });

  it('refuses a token_url the egress policy does not allow, without sending anything', async () => {
    await fx.close();
    fx = createFixture(endpoint, { allow: [] });
    fx.addSecret('sec_1');
    const err = await rejectionOf(fx.refresher().accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('refused_address');
    expect(endpoint.server.received).toHaveLength(0);
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
  });

  it('refuses a token_url that is not https, without sending anything', async () => {
    fx.addSecret('sec_1', { tokenUrl: `http://localhost:${endpoint.server.port}/oauth/token` });
    const err = await rejectionOf(fx.refresher().accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('scheme');
    expect(endpoint.server.received).toHaveLength(0);
  });
});

/** A store whose first read returns what it saw before `meanwhile` ran: another process acting between our read and our lock. */
function lagging(meanwhile: () => Promise<unknown>): TokenStore {
  let first = true;
  return {
    read: async (id) => {
      const seen = await fx.tokens.read(id);
      if (first) {
        first = false;
        await meanwhile();
      }
      return seen;
    },
    save: (id, tokens) => fx.tokens.save(id, tokens),
    markNeedsReauthorization: (id) => fx.tokens.markNeedsReauthorization(id),
  };
}

describe('refreshAfterRejection', () => {
  it('refreshes once when the stored token is the rejected one', async () => {
    fx.addSecret('sec_1', { expiresAt: null });
    const refresher = fx.refresher();
    const results = await Promise.all(Array.from({ length: 10 }, () => refresher.refreshAfterRejection('sec_1', 'at-0')));
    expect(new Set(results)).toEqual(new Set(['at-1']));
    expect(endpoint.requests()).toHaveLength(1);
  });

  it('refreshes after joining an expiry refresh that kept the rejected token', async () => {
    fx.addSecret('sec_1');
    const sqlite = fx.stores[0]!.sqlite;
    expect(await tryLock(sqlite, 'sec_1', 'other-process', Date.now(), 60_000)).toBe(true);
    const refresher = fx.refresher({ waitMs: 500 });
    const byExpiry = refresher.accessTokenFor('sec_1');
    // Once its take is refused, the expiry refresh waits behind the other process's lock.
    await fx.lockRefused();
    // The other process stores at-x and unlocks; the upstream then rejects at-x anyway.
    await fx.tokens.save('sec_1', { accessToken: 'at-x', refreshToken: 'rt-0', expiresAt: Date.now() + 3600_000 });
    await unlock(sqlite, 'sec_1', 'other-process');
    const afterRejection = refresher.refreshAfterRejection('sec_1', 'at-x');
    expect(await byExpiry).toBe('at-x');
    expect(await afterRejection).toBe('at-1');
    expect(endpoint.requests()).toHaveLength(1);
  });

  it('returns the already rotated token without a request', async () => {
    fx.addSecret('sec_1', { accessToken: 'at-7', expiresAt: null });
    expect(await fx.refresher().refreshAfterRejection('sec_1', 'at-6')).toBe('at-7');
    expect(endpoint.requests()).toHaveLength(0);
  });
});

describe('cross-process lock', () => {
  it('takes over a lock whose dead owner’s lease ran out', async () => {
    const clock = manualClock();
    fx.addSecret('sec_1', { expiresAt: clock.now() - 1 });
    expect(await tryLock(fx.stores[0]!.sqlite, 'sec_1', 'dead-process', clock.now(), 1000)).toBe(true);
    const pending = fx.refresher({ clock, waitMs: 5 }).accessTokenFor('sec_1');

    // Refused several times over while the dead owner's lease still runs (by the manual clock).
    await fx.lockRefused(3);
    expect(endpoint.requests()).toHaveLength(0);
    clock.advance(1000);
    expect(await pending).toBe('at-1');
    expect(endpoint.requests()).toHaveLength(1);
    expect(fx.lockOf('sec_1').lock_owner).toBeNull();
  });

  it('gives up with lock_timeout after maxWaitMs behind a live lock', async () => {
    fx.addSecret('sec_1');
    expect(await tryLock(fx.stores[0]!.sqlite, 'sec_1', 'busy-process', Date.now(), 60_000)).toBe(true);
    const err = await rejectionOf(fx.refresher({ waitMs: 10, maxWaitMs: 100 }).accessTokenFor('sec_1'), RefreshFailed);
    expect(err.reason).toBe('lock_timeout');
    expect(endpoint.requests()).toHaveLength(0);
    expect(fx.lockOf('sec_1').lock_owner).toBe('busy-process');
  });

  it('re-reads after taking the lock: a refresh finished elsewhere since our read is not repeated', async () => {
    fx.addSecret('sec_1');
    const first = fx.refresher();
    const second = fx.refresher({ tokens: lagging(() => first.accessTokenFor('sec_1')) });
    // The second process reads the expired grant; the first then refreshes (rotating rt-0) and unlocks.
    expect(await second.accessTokenFor('sec_1')).toBe('at-1');
    expect(endpoint.requests()).toHaveLength(1);
    expect(fx.tokens.grants.get('sec_1')!.status).toBe('active');
  });

  it('uses tokens another process saved while it waited for the lock', async () => {
    fx.addSecret('sec_1');
    expect(await tryLock(fx.stores[0]!.sqlite, 'sec_1', 'other-process', Date.now(), 60_000)).toBe(true);
    const pending = fx.refresher({ waitMs: 5 }).accessTokenFor('sec_1');
    await fx.lockRefused();
    await fx.tokens.save('sec_1', { accessToken: 'at-other', refreshToken: 'rt-other', expiresAt: Date.now() + 3600_000 });
    expect(await pending).toBe('at-other');
    expect(endpoint.requests()).toHaveLength(0);
  });
});
