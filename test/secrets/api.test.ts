import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { CANARY } from '../helpers/canaries.ts';
import { makeSecret, makeTool, toolBody } from '../helpers/tools.ts';

const MASK = '•••••••••';
let h: Harness;
let alice: string;
let bob: string;

beforeAll(() => {
  h = harness();
  alice = h.user().key;
  bob = h.user().key;
});
afterAll(() => h.close());

describe('POST /secrets', () => {
  it('stores each type and answers the Secret with the one fixed mask', async () => {
    for (const body of [
      { type: 'bearer', provider: 'crm', token: CANARY.bearer },
      { type: 'api_key', provider: 'crm', api_key: CANARY.apiKey },
      { type: 'basic', provider: 'crm', username: CANARY.basicUser, password: CANARY.basicPassword },
    ]) {
      const res = await h.call('POST', '/secrets', { key: alice, body });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ provider: 'crm', type: body.type, sanitized_secret: MASK, status: 'active' });
      expect(res.body.id).toMatch(/^sec_/);
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
      expect(Object.keys(res.body).every((k) => ['id', 'provider', 'type', 'sanitized_secret', 'created_at', 'updated_at', 'status', 'header_name'].includes(k))).toBe(true);
    }
  });

  it('refuses oauth2 with 400 saying oauth2 secrets are connected in the studio', async () => {
    const res = await h.call('POST', '/secrets', { key: alice, body: { type: 'oauth2', provider: 'google' } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.description).toMatch(/oauth2 secrets are connected in the studio/);
  });

  it.each([
    ['a missing type', { provider: 'p', token: 'abcdefghij' }, 'type'],
    ['an unknown type', { type: 'digest', provider: 'p' }, 'type'],
    ['a missing token', { type: 'bearer', provider: 'p' }, 'token'],
    ['a short token', { type: 'bearer', provider: 'p', token: 'abc' }, 'token'],
    ['a token with CR LF', { type: 'bearer', provider: 'p', token: 'abcdefgh\r\nX-Evil: 1' }, 'token'],
    ['a blank provider', { type: 'bearer', provider: '  ', token: 'abcdefghij' }, 'provider'],
    ['an unknown field', { type: 'bearer', provider: 'p', token: 'abcdefghij', extra: 1 }, 'extra'],
    ['a field of another type', { type: 'bearer', provider: 'p', token: 'abcdefghij', password: 'x' }, 'password'],
    ['an api_key header that is not a token', { type: 'api_key', provider: 'p', api_key: 'abcdefghij', header_name: 'X Key' }, 'header_name'],
    ['an api_key header with a colon', { type: 'api_key', provider: 'p', api_key: 'abcdefghij', header_name: 'X-Key:' }, 'header_name'],
    ['an empty api_key header', { type: 'api_key', provider: 'p', api_key: 'abcdefghij', header_name: '' }, 'header_name'],
    ['a basic username with a colon', { type: 'basic', provider: 'p', username: 'a:b', password: 'secret' }, 'username'],
    ['a basic password with a newline', { type: 'basic', provider: 'p', username: 'ab', password: 'se\ncret' }, 'password'],
  ])('refuses %s (400 naming the field)', async (_what, body, field) => {
    const res = await h.call('POST', '/secrets', { key: alice, body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each(['Host', 'content-length', 'Transfer-Encoding', 'CONNECTION', 'Content-Type', 'TE', 'Upgrade'])(
    'refuses header_name %s, which would break the request',
    async (name) => {
      const res = await h.call('POST', '/secrets', { key: alice, body: { type: 'api_key', provider: 'p', api_key: 'abcdefghij', header_name: name } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('header_name');
    },
  );

  it('accepts header names such as Authorization and X-Api-Token', async () => {
    for (const name of ['Authorization', 'X-Api-Token', 'apikey']) {
      const res = await h.call('POST', '/secrets', { key: alice, body: { type: 'api_key', provider: 'p', api_key: 'Token abcdefghij', header_name: name } });
      expect(res.status, name).toBe(201);
    }
  });
});

describe('reading, replacing and deleting', () => {
  it('lists newest first as a bare array, paged through X-Next-Token and Link', async () => {
    const { key } = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await makeSecret(h, key, { type: 'bearer', provider: `p${i}`, token: CANARY.bearer }));
    const first = await h.call('GET', '/secrets?limit=2', { key });
    expect(Array.isArray(first.body)).toBe(true);
    expect(first.body.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[3]]);
    const token = first.headers.get('x-next-token')!;
    expect(first.headers.get('link')).toContain(`token=${token}>; rel="next"`);
    const second = await h.call('GET', `/secrets?limit=2&token=${token}`, { key });
    const third = await h.call('GET', `/secrets?limit=2&token=${second.headers.get('x-next-token')}`, { key });
    expect([...second.body, ...third.body].map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(third.headers.get('x-next-token')).toBeNull();
    expect((await h.call('GET', '/secrets?limit=0', { key })).status).toBe(400);
    expect((await h.call('GET', '/secrets?token=nonsense', { key })).status).toBe(400);
  });

  it('PUT keeps fields left out or null, changes the provider, and bumps updated_at', async () => {
    const id = await makeSecret(h, alice, { type: 'basic', provider: 'old', username: CANARY.basicUser, password: CANARY.basicPassword });
    const res = await h.call('PUT', `/secrets/${id}`, { key: alice, body: { provider: 'new', password: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, provider: 'new', type: 'basic', sanitized_secret: MASK });
    const bad = await h.call('PUT', `/secrets/${id}`, { key: alice, body: { token: 'abcdefghij' } });
    expect(bad.status).toBe(400);
    const oauth = await h.call('PUT', `/secrets/${id}`, { key: alice, body: { type: 'oauth2' } });
    expect(oauth.status).toBe(400);
    expect(oauth.body.description).toMatch(/studio/);
  });

  it('DELETE answers the secret, then it is gone; 409 while a tool refers to it', async () => {
    const id = await makeSecret(h, alice, { type: 'bearer', provider: 'p', token: CANARY.bearer });
    const tool = await makeTool(h, alice, toolBody('https://api.example.com/w', { secretId: id }));
    const refused = await h.call('DELETE', `/secrets/${id}`, { key: alice });
    expect(refused.status).toBe(409);
    expect(refused.body.kind).toBe('ConflictError');
    expect(refused.body.details.tool_ids).toEqual([tool]);
    expect((await h.call('DELETE', `/tools/${tool}`, { key: alice })).status).toBe(200);
    const deleted = await h.call('DELETE', `/secrets/${id}`, { key: alice });
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(id);
    expect((await h.call('GET', `/secrets/${id}`, { key: alice })).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("another user's secret is 404 everywhere, including as a tool's auth.secret_id", async () => {
    const id = await makeSecret(h, alice, { type: 'bearer', provider: 'p', token: CANARY.bearer });
    for (const [method, body] of [['GET', undefined], ['PUT', { token: 'abcdefghijk' }], ['DELETE', undefined]] as const) {
      const res = await h.call(method, `/secrets/${id}`, { key: bob, ...(body ? { body } : {}) });
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ kind: 'NotFoundError', description: 'Secret not found' });
    }
    const list = await h.call('GET', '/secrets', { key: bob });
    expect(list.body.map((s: { id: string }) => s.id)).not.toContain(id);
    const tool = await h.call('POST', '/tools', { key: bob, body: toolBody('https://api.example.com/w', { secretId: id }) });
    expect(tool.status).toBe(404);
    expect(tool.body.details[0].field).toBe('auth.secret_id');
    const own = await makeTool(h, bob, toolBody('https://api.example.com/w'));
    const swap = await h.call('PUT', `/tools/${own}`, { key: bob, body: toolBody('https://api.example.com/w', { secretId: id }) });
    expect(swap.status).toBe(404);
    // Alice's secret is untouched.
    expect((await h.call('GET', `/secrets/${id}`, { key: alice })).status).toBe(200);
  });

  it("another user's tool is 404 to get, replace, delete and call; audit shows only your own events", async () => {
    const tool = await makeTool(h, alice, toolBody('https://api.example.com/w'));
    for (const [method, path, body] of [
      ['GET', `/tools/${tool}`, undefined],
      ['PUT', `/tools/${tool}`, toolBody('https://api.example.com/w')],
      ['DELETE', `/tools/${tool}`, undefined],
      ['POST', `/tools/${tool}/calls`, { input: { city: 'Oslo' } }],
    ] as const) {
      const res = await h.call(method, path, { key: bob, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const audit = await h.call('GET', `/audit?tool_id=${tool}`, { key: bob });
    expect(audit.body.events).toEqual([]);
    const mine = await h.call('GET', `/audit?tool_id=${tool}`, { key: alice });
    expect(mine.body.events.map((e: { action: string }) => e.action)).toEqual(['tool.created']);
  });
});

describe('audit trail', () => {
  it('records created, updated, deleted with time and outcome, and never a credential', async () => {
    const { key } = h.user();
    const id = await makeSecret(h, key, { type: 'bearer', provider: 'p', token: CANARY.bearer });
    await h.call('PUT', `/secrets/${id}`, { key, body: { token: CANARY.rotatedBearer } });
    await h.call('DELETE', `/secrets/${id}`, { key });
    const res = await h.call('GET', `/audit?secret_id=${id}`, { key });
    expect(res.body.events.map((e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`)).toEqual([
      'secret.deleted:success',
      'secret.updated:success',
      'secret.created:success',
    ]);
    expect(res.body.events[1].detail.changed).toEqual(['token']);
    expect(new Date(res.body.events[0].at).toISOString()).toBe(res.body.events[0].at);
    const page = await h.call('GET', `/audit?limit=1`, { key });
    expect(page.body.events).toHaveLength(1);
    expect(page.body.token).toBeTruthy();
  });
});
