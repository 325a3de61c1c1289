import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { csrfOf, signIn } from '../accounts/studio-client.ts';
import { API_KEY_PATTERN } from '../../src/users/api-keys.ts';
import { MAX_ACTIVE_KEYS } from '../../src/users/contract.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

const create = (key: string) => h.call('POST', '/keys', { key });

describe('POST /keys', () => {
  it('creates a key shown once, which works at once, and lists it without the key', async () => {
    const alice = h.user();
    const res = await create(alice.key);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['api_key', 'created_at', 'id', 'prefix']);
    expect(res.body.id).toMatch(/^key_/);
    expect(res.body.api_key).toMatch(API_KEY_PATTERN);
    expect(res.body.prefix).toBe(res.body.api_key.slice(0, 12));
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

    const list = await h.call('GET', '/keys', { key: res.body.api_key });
    expect(list.status).toBe(200);
    expect(list.body.keys).toHaveLength(2);
    expect(list.body.keys[0]).toEqual({ id: res.body.id, prefix: res.body.prefix, created_at: res.body.created_at, revoked_at: null, current: true });
    expect(list.body.keys[1]).toMatchObject({ revoked_at: null, current: false });
    expect(JSON.stringify(list.body)).not.toContain(res.body.api_key);
    expect(list.body.token).toBeUndefined();
  });

  it(`refuses a key past ${MAX_ACTIVE_KEYS} active ones (409), and creates again once one is revoked`, async () => {
    const bob = h.user();
    const ids: string[] = [];
    for (let i = 1; i < MAX_ACTIVE_KEYS; i++) {
      const res = await create(bob.key);
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const over = await create(bob.key);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ kind: 'ConflictError' });
    expect(over.body.description).toContain(`${MAX_ACTIVE_KEYS} active API keys`);
    expect((await h.call('DELETE', `/keys/${ids[0]}`, { key: bob.key })).status).toBe(200);
    expect((await create(bob.key)).status).toBe(201);
    // Revoked keys are listed, and the list pages.
    const first = await h.call('GET', '/keys?limit=15', { key: bob.key });
    expect(first.body.keys).toHaveLength(15);
    expect(first.body.token).toEqual(expect.any(String));
    const rest = await h.call('GET', `/keys?limit=15&token=${first.body.token}`, { key: bob.key });
    expect(rest.body.keys).toHaveLength(MAX_ACTIVE_KEYS + 1 - 15);
    expect(rest.body.token).toBeUndefined();
    const all = [...first.body.keys, ...rest.body.keys];
    expect(new Set(all.map((k: { id: string }) => k.id)).size).toBe(MAX_ACTIVE_KEYS + 1);
    expect(all.filter((k: { revoked_at: string | null }) => k.revoked_at !== null).map((k: { id: string }) => k.id)).toEqual([ids[0]]);
  });

  it('needs a key (401)', async () => {
    expect((await h.call('POST', '/keys')).status).toBe(401);
    expect((await h.call('GET', '/keys')).status).toBe(401);
  });
});

describe('DELETE /keys/{id}', () => {
  it('revokes one of the caller\'s keys: its next request is 401, the others keep working', async () => {
    const carol = h.user();
    const spare = (await create(carol.key)).body;
    const res = await h.call('DELETE', `/keys/${spare.id}`, { key: carol.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: spare.id, prefix: spare.prefix, created_at: spare.created_at, current: false });
    expect(new Date(res.body.revoked_at).toISOString()).toBe(res.body.revoked_at);
    const refused = await h.call('GET', '/keys', { key: spare.api_key });
    expect(refused.status).toBe(401);
    expect(refused.body.kind).toBe('AuthorizationError');
    expect((await h.call('GET', '/keys', { key: carol.key })).status).toBe(200);
    // Again: answered unchanged.
    const again = await h.call('DELETE', `/keys/${spare.id}`, { key: carol.key });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(res.body.revoked_at);
  });

  it('answers 404 for another user\'s key, which keeps working, and for no key at all', async () => {
    const dave = h.user();
    const erin = h.user();
    const erinsKey = (await create(erin.key)).body;
    const res = await h.call('DELETE', `/keys/${erinsKey.id}`, { key: dave.key });
    expect(res.status).toBe(404);
    expect(res.body.kind).toBe('NotFoundError');
    expect((await h.call('GET', '/keys', { key: erinsKey.api_key })).status).toBe(200);
    expect((await h.call('DELETE', '/keys/key_nope', { key: dave.key })).status).toBe(404);
    // Nor does a listing show another user's keys.
    const daves = await h.call('GET', '/keys', { key: dave.key });
    expect(daves.body.keys.map((k: { id: string }) => k.id)).not.toContain(erinsKey.id);
    expect(daves.body.keys).toHaveLength(1);
  });

  it('revokes the key the request came with, and says so', async () => {
    const frank = h.user();
    const list = await h.call('GET', '/keys', { key: frank.key });
    const own = list.body.keys[0];
    expect(own.current).toBe(true);
    const res = await h.call('DELETE', `/keys/${own.id}`, { key: frank.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: own.id, current: true });
    expect(res.body.revoked_at).not.toBeNull();
    expect((await h.call('GET', '/keys', { key: frank.key })).status).toBe(401);
  });
});

describe('the reference', () => {
  it('publishes the three operations under Keys, with the 201 of POST', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.paths['/keys'].get.tags).toEqual(['Keys']);
    expect(doc.paths['/keys'].post.responses['201']).toBeDefined();
    expect(doc.paths['/keys/{id}'].delete.responses['404']).toBeDefined();
  });
});

describe('/keys with a bearer token', () => {
  it('a studio session\'s token creates, lists and revokes the person\'s keys; a revoked key is refused', async () => {
    const grace = await person(h, { email: 'grace@example.com', password: 'a long enough password' });
    const client = await signIn(h, 'grace@example.com', 'a long enough password');
    const minted = await client.post('/studio/token', {}, { 'x-csrf-token': await csrfOf(h, client), accept: 'application/json' });
    expect(minted.status).toBe(200);
    const token = ((await minted.json()) as { access_token: string }).access_token;

    const created = await h.call('POST', '/keys', { token });
    expect(created.status).toBe(201);
    const list = await h.call('GET', '/keys', { token });
    expect(list.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);
    // The session is not a key: none is marked as the request's own.
    expect(list.body.keys.every((k: { current: boolean }) => !k.current)).toBe(true);
    expect((await h.call('GET', '/keys', { key: created.body.api_key })).body.keys).toHaveLength(2);

    const revoked = await h.call('DELETE', `/keys/${created.body.id}`, { token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.current).toBe(false);
    expect((await h.call('GET', '/keys', { key: created.body.api_key })).status).toBe(401);
    // Another person's key, by token as by key: 404.
    const other = h.user();
    const othersKey = (await create(other.key)).body;
    expect((await h.call('DELETE', `/keys/${othersKey.id}`, { token })).status).toBe(404);
    expect((await h.call('GET', '/keys', { key: grace.key })).status).toBe(200);
  });

  it('a token obtained for an API key marks that key current, and dies with it', async () => {
    const ivan = h.user();
    const exchanged = await h.call('POST', '/auth/token', { key: ivan.key });
    expect(exchanged.status).toBe(200);
    const token = exchanged.body.access_token;
    const own = (await h.call('GET', '/keys', { token })).body.keys[0];
    expect(own.current).toBe(true);
    const res = await h.call('DELETE', `/keys/${own.id}`, { token });
    expect(res.body).toMatchObject({ id: own.id, current: true });
    expect((await h.call('GET', '/keys', { token })).status).toBe(401);
  });
});
