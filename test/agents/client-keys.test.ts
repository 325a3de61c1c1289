import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../helpers/tls.ts';
import { CANARY } from '../helpers/canaries.ts';
import { makeSecret } from '../helpers/tools.ts';
import { chunk, writeEvents } from '../llm/model-server.ts';
import { AUDIT } from '../../src/audit/contract.ts';
import { clientKeyFromAuthorization } from '../../src/platform/caller.ts';
import { answerFrames, openNotifications, serveHarness } from '../helpers/notifications.ts';

/**
 * Browsers' client keys (docs/agents.md, "Client keys"): made for one agent by its owner,
 * shown once, revocable; accepted only on the routes that opted in (the agent's runtime,
 * streams and chat), for that agent, from the key's origins; rate limited per end user.
 */

const PAGE = 'https://shop.example';
const PRESENTER = 'eileen-Nc7kQ2rT5x';

let model: TestServer;
let h: Harness | undefined;
beforeAll(async () => {
  model = await startTlsServer();
  model.handle((_req: ReceivedRequest, res: ServerResponse) => writeEvents(res, [chunk({ content: 'Hello there.' }), chunk({}, 'stop')]));
});
afterAll(async () => {
  await model.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const make = (env: Record<string, string> = {}) => {
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', ...env }, { ca: [model.ca], voices: toneCatalogue('local').catalogue });
  return h;
};

async function makeAgent(h: Harness, key: string): Promise<string> {
  const secret = await makeSecret(h, key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
  const res = await h.call('POST', '/agents', {
    key,
    body: {
      preview_name: 'Emma',
      presenter: { type: 'clip', presenter_id: PRESENTER },
      llm: { provider: 'openai', model: 'gpt-test', base_url: `${model.url}/v1`, instructions: 'Be brief.', secret_id: secret },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function makeClientKey(h: Harness, key: string, agent: string, origins = [PAGE]): Promise<{ id: string; client_key: string }> {
  const res = await h.call('POST', `/agents/${agent}/client-keys`, { key, body: { allowed_domains: origins, name: 'shop' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The SDK's header: `Client-Key <key>.<externalId>_<connectionId>`, from a page on `origin` (none: no Origin header). */
const asBrowser = (clientKey: string, opts: { externalId?: string; connectionId?: string; origin?: string | null } = {}) => {
  const headers: Record<string, string> = { authorization: `Client-Key ${clientKey}.${opts.externalId ?? 'visitor-1'}_${opts.connectionId ?? 'conn1'}` };
  if (opts.origin !== null) headers.origin = opts.origin ?? PAGE;
  return { headers };
};

describe('the Client-Key header', () => {
  const key = `mimic_ck_${'a'.repeat(43)}`;
  it('splits at the first "." and the last "_": an external id may hold both', () => {
    expect(clientKeyFromAuthorization(`Client-Key ${key}.user-42_c0nn`)).toEqual({ key, externalId: 'user-42', connectionId: 'c0nn' });
    expect(clientKeyFromAuthorization(`Client-Key ${key}.a.b_c.d_e_conn`)).toEqual({ key, externalId: 'a.b_c.d_e', connectionId: 'conn' });
    expect(clientKeyFromAuthorization(`client-key ${key}.mail@x.example`)).toEqual({ key, externalId: 'mail@x.example' });
    expect(clientKeyFromAuthorization(`Client-Key ${key}.ext_`)).toEqual({ key, externalId: 'ext' });
  });
  it('is malformed (null) without a key, a "." or an external id, and not its business (undefined) for other schemes', () => {
    expect(clientKeyFromAuthorization(`Client-Key ${key}`)).toBeNull();
    expect(clientKeyFromAuthorization(`Client-Key ${key}._conn`)).toBeNull();
    expect(clientKeyFromAuthorization('Client-Key not-a-key.ext_conn')).toBeNull();
    expect(clientKeyFromAuthorization('Client-Key')).toBeNull();
    expect(clientKeyFromAuthorization(`Basic ${key}`)).toBeUndefined();
    expect(clientKeyFromAuthorization(undefined)).toBeUndefined();
  });
});

describe('client keys', () => {
  it('are shown once on create, listed without the key, and another user\'s agent is not found', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const created = await makeClientKey(h, u.key, agent, [PAGE, 'http://localhost:5173/']);
    expect(created.client_key).toMatch(/^mimic_ck_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ id: expect.stringMatching(/^ck_/), allowed_domains: [PAGE, 'http://localhost:5173'], name: 'shop', resource_id: agent });

    const list = await h.call('GET', `/agents/${agent}/client-keys`, { key: u.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ id: created.id, prefix: created.client_key.slice(0, 14), allowed_domains: [PAGE, 'http://localhost:5173'], name: 'shop', resource_id: agent, created_at: expect.any(String) }]);
    expect(JSON.stringify(list.body)).not.toContain(created.client_key);

    const other = h.user();
    expect((await h.call('POST', `/agents/${agent}/client-keys`, { key: other.key, body: { allowed_domains: [PAGE] } })).status).toBe(404);
    expect((await h.call('GET', `/agents/${agent}/client-keys`, { key: other.key })).status).toBe(404);
    expect((await h.call('DELETE', `/agents/${agent}/client-keys/${created.id}`, { key: other.key })).status).toBe(404);
    expect((await h.call('PATCH', `/agents/${agent}/client-keys/${created.id}`, { key: other.key, body: { name: 'x' } })).status).toBe(404);
  });

  it('refuses an allowed domain that is not an origin, by name', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const res = await h.call('POST', `/agents/${agent}/client-keys`, { key: u.key, body: { allowed_domains: [PAGE, 'https://shop.example/embed'] } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.details).toEqual([{ field: 'allowed_domains/1', message: expect.any(String) }]);
  });

  it("reach the agent's runtime and chat from an allowed origin, with CORS for that page (preflight too)", async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);

    const preflight = await h.app.request(`/agents/${agent}/runtime`, {
      method: 'OPTIONS',
      headers: { origin: PAGE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');

    const runtime = await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key));
    expect(runtime.status, JSON.stringify(runtime.body)).toBe(200);
    expect(runtime.body.id).toBe(agent);
    expect(runtime.headers.get('access-control-allow-origin')).toBe(PAGE);

    const chat = await h.call('POST', `/agents/${agent}/chat`, { ...asBrowser(client_key), body: {} });
    expect(chat.status, JSON.stringify(chat.body)).toBe(201);

    // The agent's streams opted in too: the stream is opened (and closed) for the owner.
    const stream = await h.call('POST', `/agents/${agent}/streams`, { ...asBrowser(client_key), body: {} });
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);
    const closed = await h.call('DELETE', `/agents/${agent}/streams/${stream.body.id}`, { ...asBrowser(client_key), body: { session_id: stream.body.session_id } });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  });

  it('carry the external id into the audit rows of what the end user caused', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const externalId = 'shopper.7_eu';
    const chat = (await h.call('POST', `/agents/${agent}/chat`, { ...asBrowser(client_key, { externalId }), body: {} })).body.id;
    const res = await h.call('POST', `/agents/${agent}/chat/${chat}`, {
      ...asBrowser(client_key, { externalId }),
      body: { messages: [{ role: 'user', content: 'Hi', created_at: new Date().toISOString() }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await h.services.find(AUDIT)!.list({ userId: u.id, action: 'secret.used' }, 10, null);
    expect(rows.map((r) => r.externalId)).toEqual([externalId]);
    const audit = await h.call('GET', '/audit', { key: u.key });
    expect(audit.body.events[0]).toMatchObject({ action: 'secret.used', external_id: externalId });
  });

  it("continue only the chats their own end user started: another end user's, or the owner's, is not found", async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const ask = (chat: string, opts: Parameters<typeof asBrowser>[1]) =>
      h.call('POST', `/agents/${agent}/chat/${chat}`, { ...asBrowser(client_key, opts), body: { messages: [{ role: 'user', content: 'Hi' }] } });
    const alices = (await h.call('POST', `/agents/${agent}/chat`, { ...asBrowser(client_key, { externalId: 'alice' }), body: {} })).body.id;
    const owners = (await h.call('POST', `/agents/${agent}/chat`, { key: u.key, body: {} })).body.id;
    expect((await ask(alices, { externalId: 'alice' })).status).toBe(200);
    const bob = await ask(alices, { externalId: 'bob' });
    expect(bob.status).toBe(404);
    expect(bob.body).toEqual({ kind: 'NotFoundError', description: 'Chat not found' });
    expect((await ask(owners, { externalId: 'alice' })).status).toBe(404);
    // The owner reads and continues every chat of the agent.
    expect((await h.call('GET', `/agents/${agent}/chat/${alices}`, { key: u.key })).body.messages.length).toBeGreaterThan(0);
  });

  it('are refused from another origin, without an Origin, on any route that did not opt in, and for another agent', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const second = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const refused = async (method: string, path: string, opts: ReturnType<typeof asBrowser>, what: RegExp) => {
      const res = await h.call(method, path, { ...opts, ...(method === 'GET' ? {} : { body: {} }) });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.kind).toBe('PermissionError');
      expect(res.body.description).toMatch(what);
    };
    await refused('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { origin: 'https://evil.example' }), /allowed origins, and https:\/\/evil\.example is not/);
    await refused('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { origin: null }), /no Origin header/);
    // Routes that did not opt in, the agent's own ones included: default deny.
    await refused('GET', `/agents/${agent}`, asBrowser(client_key), /needs an API key or a bearer token/);
    await refused('GET', '/agents/me', asBrowser(client_key), /needs an API key or a bearer token/);
    await refused('GET', `/agents/${agent}/chats`, asBrowser(client_key), /needs an API key or a bearer token/);
    await refused('POST', `/agents/${agent}/client-keys`, asBrowser(client_key), /needs an API key or a bearer token/);
    await refused('GET', '/keys', asBrowser(client_key), /needs an API key or a bearer token/);
    await refused('GET', '/no/such/path', asBrowser(client_key), /needs an API key or a bearer token/);
    // The same owner's other agent.
    await refused('GET', `/agents/${second}/runtime`, asBrowser(client_key), /another agent/);
    await refused('POST', `/agents/${second}/chat`, asBrowser(client_key), /another agent/);
    await refused('POST', `/agents/${second}/streams`, asBrowser(client_key), /another agent/);
  });

  it('stop working at the next request once revoked, and a malformed or unknown key is a 401', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { id, client_key } = await makeClientKey(h, u.key, agent);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key))).status).toBe(200);
    expect((await h.call('DELETE', `/agents/${agent}/client-keys/${id}`, { key: u.key })).status).toBe(204);
    const after = await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ kind: 'AuthorizationError', description: 'The client key is invalid or revoked' });
    expect((await h.call('GET', `/agents/${agent}/client-keys`, { key: u.key })).body).toEqual([]);
    expect((await h.call('DELETE', `/agents/${agent}/client-keys/${id}`, { key: u.key })).status).toBe(404);

    const malformed = await h.call('GET', `/agents/${agent}/runtime`, { headers: { authorization: `Client-Key ${client_key}`, origin: PAGE } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.description).toMatch(/Client-Key <client key>\.<external id>_<connection id>/);
  });

  it('follow a change of allowed origins at once', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { id, client_key } = await makeClientKey(h, u.key, agent);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key))).status).toBe(200);
    expect((await h.call('PATCH', `/agents/${agent}/client-keys/${id}`, { key: u.key, body: { allowed_domains: ['https://other.example'] } })).status).toBe(204);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key))).status).toBe(403);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { origin: 'https://other.example' }))).status).toBe(200);
  });

  it('die with their agent', async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key))).status).toBe(200);
    expect((await h.call('DELETE', `/agents/${agent}`, { key: u.key })).status).toBe(200);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key))).status).toBe(401);
  });

  it('are rate limited per key and end user: one end user running out leaves the others their own bucket', async () => {
    const BURST = 3;
    const h = make({ MIMIC_RATE_LIMIT: '1', MIMIC_RATE_LIMIT_BURST: String(BURST) });
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 2; i++) statuses.push((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { externalId: 'alice' }))).status);
    expect(statuses).toContain(429);
    expect((await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { externalId: 'bob' }))).status).toBe(200);
  });

  it('are rate limited as a whole too: end user ids the page makes up do not lift the key\'s total, and the owner\'s API key keeps its own', async () => {
    // Each end user (and the owner's API key) 10 at once; the key as a whole 2 a second, bursts of 4.
    const h = make({ MIMIC_RATE_LIMIT: '1', MIMIC_RATE_LIMIT_BURST: '10', MIMIC_CLIENT_KEY_RATE_LIMIT: '2' });
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await h.call('GET', `/agents/${agent}/runtime`, asBrowser(client_key, { externalId: `user-${i}` })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses).toContain(429);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toMatchObject({ kind: 'TooManyRequestsError' });
    expect(refused.body.description).toContain('this client key (all its end users together)');
    expect((await h.call('GET', `/agents/${agent}`, { key: u.key })).status).toBe(200);
  });

  it("hold their streams to limits of their own, per end user and per key, never the owner's", async () => {
    const h = make({ MIMIC_STREAMS_PER_USER: '1', MIMIC_CLIENT_KEY_STREAMS: '3', MIMIC_CLIENT_KEY_STREAMS_PER_END_USER: '2' });
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const open = (who: { key: string } | { headers: Record<string, string> }) => h.call('POST', `/agents/${agent}/streams`, { ...who, body: {} });
    const opened: { id: string; session_id: string; as: { key: string } | { headers: Record<string, string> } }[] = [];
    const take = async (as: { key: string } | { headers: Record<string, string> }) => {
      const res = await open(as);
      if (res.status === 201) opened.push({ ...res.body, as });
      return res;
    };
    try {
      const alice = asBrowser(client_key, { externalId: 'alice' });
      expect((await take(alice)).status).toBe(201);
      expect((await take(alice)).status).toBe(201);
      const third = await take(alice);
      expect(third.status).toBe(429);
      expect(third.body.description).toContain('per end user of a client key');
      // Another visitor has their own allowance, up to the key's three.
      expect((await take(asBrowser(client_key, { externalId: 'bob' }))).status).toBe(201);
      const full = await take(asBrowser(client_key, { externalId: 'carol' }));
      expect(full.status).toBe(429);
      expect(full.body.description).toContain('This client key has 3 live streams open');
      // The owner's own allowance (one) is untouched by the visitors' three.
      expect((await take({ key: u.key })).status).toBe(201);
      expect((await take({ key: u.key })).body.description).toContain('the limit per user');
    } finally {
      for (const s of opened) await h.call('DELETE', `/agents/${agent}/streams/${s.id}`, { ...s.as, body: { session_id: s.session_id } });
    }
    // All closed: the places are free again.
    expect((await take(asBrowser(client_key, { externalId: 'carol' }))).status).toBe(201);
    const last = opened.at(-1)!;
    await h.call('DELETE', `/agents/${agent}/streams/${last.id}`, { ...last.as, body: { session_id: last.session_id } });
  });

  it("open the agent's notifications socket from an allowed origin, and get only their own end user's answers", async () => {
    const h = make();
    const u = h.user();
    const agent = await makeAgent(h, u.key);
    const { client_key } = await makeClientKey(h, u.key, agent);
    const served = await serveHarness(h);
    try {
      const header = (externalId: string, connection: string) => `?authorization=${encodeURIComponent(`Client-Key ${client_key}.${externalId}_${connection}`)}`;
      const refused = (p: Promise<unknown>) => p.then(() => 'opened', (err: { status?: number }) => err.status);
      expect(await refused(openNotifications(served.base, header('alice', 'c1'), { origin: 'https://evil.example' }))).toBe(403);
      expect(await refused(openNotifications(served.base, header('alice', 'c1')))).toBe(403);
      const alice = await openNotifications(served.base, header('alice', 'c1'), { origin: PAGE });
      // Another end user sending the same connection id gets nothing of alice's.
      const mallory = await openNotifications(served.base, header('mallory', 'c1'), { origin: PAGE });
      const chat = (await h.call('POST', `/agents/${agent}/chat`, { ...asBrowser(client_key, { externalId: 'alice', connectionId: 'c1' }), body: {} })).body.id;
      const res = await h.call('POST', `/agents/${agent}/chat/${chat}`, {
        ...asBrowser(client_key, { externalId: 'alice', connectionId: 'c1' }),
        body: { messages: [{ role: 'user', content: 'Hi' }] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result).toBe('');
      expect((await answerFrames(alice)).at(-1)).toEqual({ event: 'chat/answer', content: 'Hello there.' });
      expect(mallory.frames).toEqual([]);
      alice.ws.close();
      mallory.ws.close();
    } finally {
      await served.close();
    }
  });
});
