import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, userDeps, type Harness } from '../helpers/harness.ts';
import { revokeKey } from '../../src/users/accounts.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

describe('authentication', () => {
  it.each([
    ['no header', undefined],
    ['an unknown key', 'Basic mimic_' + 'A'.repeat(43)],
    ['garbage', 'Basic !!!'],
    ['another scheme', 'Digest abc'],
    ['an empty Basic', 'Basic '],
  ])('answers 401 AuthorizationError for %s', async (_n, header) => {
    const res = await h.call('GET', '/animations', { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ kind: 'AuthorizationError', description: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('challenges a navigation and a non-browser client, never a page\'s own fetch (a browser would put its login dialog over the page)', async () => {
    const challenge = async (headers: Record<string, string>) => (await h.call('GET', '/animations', { headers })).headers.get('www-authenticate');
    expect(await challenge({ 'sec-fetch-mode': 'navigate' })).toMatch(/^Basic/);
    expect(await challenge({ 'sec-fetch-mode': 'cors' })).toBeNull();
    expect(await challenge({ 'sec-fetch-mode': 'same-origin' })).toBeNull();
  });

  it('accepts the key as Basic <API_KEY>, as RFC 7617 user:key and key:, and as Bearer', async () => {
    const { key } = h.user();
    const forms = [
      `Basic ${key}`,
      `Basic ${Buffer.from(`someone@example.com:${key}`).toString('base64')}`,
      `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      `Bearer ${key}`,
    ];
    for (const authorization of forms) {
      const res = await h.call('GET', '/animations', { headers: { authorization } });
      expect(res.status, authorization.slice(0, 6)).toBe(200);
    }
  });

  it("ignores the hosted SDK's ~<connection id> suffix on every form", async () => {
    const { key } = h.user();
    const forms = [
      `Basic ${key}~conn_123`,
      `Basic ${Buffer.from(`someone@example.com:${key}`).toString('base64')}~abc`,
      `Bearer ${key}~x`,
    ];
    for (const authorization of forms) {
      const res = await h.call('GET', '/animations', { headers: { authorization } });
      expect(res.status, authorization.slice(0, 6)).toBe(200);
    }
    // The suffix cannot make a wrong key right.
    const res = await h.call('GET', '/animations', { headers: { authorization: `Basic ${key.slice(0, -1)}~${key.slice(-1)}` } });
    expect(res.status).toBe(401);
  });

  it('refuses a revoked key on the next request', async () => {
    const { key } = h.user();
    expect((await h.call('GET', '/animations', { key })).status).toBe(200);
    expect(await revokeKey(userDeps(h.services), key)).toBe(true);
    expect((await h.call('GET', '/animations', { key })).status).toBe(401);
  });

  it('stores keys only as keyed hashes', () => {
    const { key } = h.user();
    const rows = sqliteOf(h.services.store).sqlite.prepare('SELECT * FROM api_keys').all();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(rows)).not.toContain(key.slice(12));
  });

  it('keeps public routes public and everything else behind a key', async () => {
    expect((await h.call('GET', '/health')).status).toBe(200);
    expect((await h.call('GET', '/openapi.json')).status).toBe(200);
    expect((await h.call('GET', '/docs')).status).toBe(200);
    expect((await h.call('GET', '/no-such-route')).status).toBe(401);
  });
});

describe('tenancy', () => {
  it('shows another user’s animation as 404, never 403, and never lists it', async () => {
    const a = h.user();
    const b = h.user();
    const created = await h.call('POST', '/animations', { key: a.key, body: {} });
    const id = created.body.id;
    expect((await h.call('GET', `/animations/${id}`, { key: a.key })).status).toBe(200);
    const asB = await h.call('GET', `/animations/${id}`, { key: b.key });
    expect(asB.status).toBe(404);
    expect(asB.body.kind).toBe('NotFoundError');
    expect((await h.call('DELETE', `/animations/${id}`, { key: b.key })).status).toBe(404);
    expect((await h.call('GET', '/animations', { key: b.key })).body.animations).toEqual([]);
    expect((await h.call('GET', `/animations/${id}`, { key: a.key })).status).toBe(200);
  });
});

describe('errors', () => {
  it('renders an unexpected fault as a generic 500 with a request id', async () => {
    const { key } = h.user();
    const original = h.services.modules.animations.deps.queue.enqueue;
    h.services.modules.animations.deps.queue.enqueue = () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    try {
      const res = await h.call('POST', '/animations', { key, body: {} });
      expect(res.status).toBe(500);
      expect(res.body.kind).toBe('InternalServerError');
      expect(JSON.stringify(res.body)).not.toContain('disk on fire');
      expect(res.body.details.request_id).toBe(res.headers.get('x-request-id'));
    } finally {
      h.services.modules.animations.deps.queue.enqueue = original;
    }
    // The failed request wrote nothing: the charge rolled back.
    const list = await h.call('GET', '/animations', { key });
    expect(list.body.animations).toHaveLength(0);
  });

  it('logs one JSON line per request with id, status and duration, and no key', async () => {
    const { key } = h.user();
    await h.call('GET', '/animations?token=', { key });
    const lines = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    const last = lines.at(-1);
    expect(last).toMatchObject({ method: 'GET', path: '/animations', status: 200 });
    expect(last.request_id).toMatch(/^req_/);
    expect(typeof last.duration_ms).toBe('number');
    expect(h.logs.join('\n')).not.toContain(key);
  });
});

describe('pagination', () => {
  it('lists newest first across pages with a token', async () => {
    const { key } = h.user({ credits: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.call('POST', '/animations', { key, body: { user_data: `n${i}` } })).body.id);
    const p1 = await h.call('GET', '/animations?limit=2', { key });
    expect(p1.body.animations.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[3]]);
    const p2 = await h.call('GET', `/animations?limit=2&token=${p1.body.token}`, { key });
    expect(p2.body.animations.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const p3 = await h.call('GET', `/animations?limit=2&token=${p2.body.token}`, { key });
    expect(p3.body.animations.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect(p3.body.token).toBeUndefined();
  });

  it.each(['0', '101', 'abc', '1.5'])('refuses limit=%s', async (limit) => {
    const { key } = h.user();
    const res = await h.call('GET', `/animations?limit=${limit}`, { key });
    expect(res.status).toBe(400);
  });

  it('refuses a forged token', async () => {
    const { key } = h.user();
    expect((await h.call('GET', '/animations?token=bm9wZQ', { key })).status).toBe(400);
  });
});
