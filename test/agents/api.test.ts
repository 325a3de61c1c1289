import { afterEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { CANARY } from '../helpers/canaries.ts';
import { makeSecret, makeTool, toolBody } from '../helpers/tools.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PRESENTER = 'eileen-Nc7kQ2rT5x';
const make = (fallback: 'local' | 'error' = 'local', env: Record<string, string> = {}) => {
  h = harness(env, { voices: toneCatalogue(fallback).catalogue });
  return h;
};

/** An agent on a local model (no key needed). */
const agent = (extra: Record<string, unknown> = {}, llm: Record<string, unknown> = {}) => ({
  preview_name: 'Emma',
  presenter: { type: 'clip', presenter_id: PRESENTER },
  llm: { provider: 'openai', model: 'llama3.2', base_url: 'http://localhost:11434/v1', instructions: 'You are helpful.', ...llm },
  ...extra,
});

/** An agent without the expiry and signature of its signed thumbnail URL (they move with the clock's second). */
const stable = (a: { preview_thumbnail?: string }) => ({ ...a, preview_thumbnail: a.preview_thumbnail?.replace(/\?.*$/, '') });

const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

describe('POST /agents', () => {
  it('creates an agent and answers it with the hosted fields, the voice that will speak, and no credential', async () => {
    const h = make();
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
    const tool = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}'));
    const body = {
      preview_name: 'Emma',
      preview_description: 'Answers weather questions',
      presenter: { type: 'clip', presenter_id: PRESENTER },
      llm: { provider: 'openai', model: 'gpt-4o-mini', instructions: 'Be brief.', temperature: 0.3, template: 'assistant', secret_id: secret, tools: [tool] },
      greetings: ['Hi there!'],
      starter_message: ['What is the weather in Oslo?'],
      embed: true,
    };
    const res = await h.call('POST', '/agents', { key: u.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const a = res.body;
    expect(a.id).toMatch(/^agt_/);
    // Everything written is shown as written, with the owner and the voice that will speak.
    expect(a).toMatchObject({ ...body, owner_id: u.id, metadata: { voice: { type: 'flite', voice_id: 'en-US-flite-slt' } } });
    expect(Date.parse(a.created_at)).toBeGreaterThan(0);
    expect(a.modified_at).toBe(a.created_at);
    expect(a.preview_thumbnail).toMatch(/^http:\/\/mimic\.test\/media\//);
    expect(stable((await h.call('GET', `/agents/${a.id}`, { key: u.key })).body)).toEqual(stable(a));
    expect((await h.call('GET', '/agents/me', { key: u.key })).body.agents.map(stable)).toEqual([stable(a)]);
  });

  it('defaults greetings, starter_message, tools and embed; a talk presenter speaks with an embedded voice and shows its photo', async () => {
    const h = make();
    const u = h.user();
    const res = await h.call('POST', '/agents', { key: u.key, body: agent({ presenter: { type: 'talk', source_url: 'https://img.test/emma.jpg' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ greetings: [], starter_message: [], embed: false, llm: { tools: [] }, preview_thumbnail: 'https://img.test/emma.jpg' });
    expect(res.body.metadata.voice.type).toBe('flite');
    expect(res.body.llm.secret_id).toBeUndefined();
  });

  it('says which voice will speak when the asked vendor is not configured (MIMIC_VOICE_FALLBACK=local)', async () => {
    const h = make('local');
    const u = h.user();
    const voice = { type: 'microsoft', voice_id: 'en-US-JennyNeural' };
    const res = await h.call('POST', '/agents', { key: u.key, body: agent({ presenter: { type: 'clip', presenter_id: PRESENTER, voice } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.presenter.voice).toEqual(voice);
    expect(res.body.metadata.voice.type).toBe('flite');
    expect(res.body.metadata.voice.fallback).toMatchObject({ requested: voice, reason: expect.stringMatching(/not configured/) });
  });

  it('refuses an unconfigured vendor with 400 naming presenter.voice.type when MIMIC_VOICE_FALLBACK=error', async () => {
    const h = make('error');
    const u = h.user();
    const res = await h.call('POST', '/agents', { key: u.key, body: agent({ presenter: { type: 'clip', presenter_id: PRESENTER, voice: { type: 'microsoft', voice_id: 'en-US-JennyNeural' } } }) });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toContain('presenter.voice.type');
  });

  it('accepts and drops what real clients send beside the contract: llm.type, llm.secretId as secret_id, knowledge: null', async () => {
    const h = make();
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'api_key', provider: 'openai', api_key: CANARY.apiKey });
    const res = await h.call('POST', '/agents', {
      key: u.key,
      body: { ...agent({}, { type: 'openai', base_url: undefined, secretId: secret }), knowledge: null },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.llm.secret_id).toBe(secret);
    expect(res.body.llm.type).toBeUndefined();
    expect(res.body.llm.secretId).toBeUndefined();
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['no presenter', { presenter: undefined }, 'presenter'],
    ['no llm', { llm: undefined }, 'llm'],
    ['an expressive presenter', { presenter: { type: 'expressive', presenter_id: PRESENTER } }, 'presenter.type'],
    ['a clip presenter without presenter_id', { presenter: { type: 'clip' } }, 'presenter.presenter_id'],
    ['an unknown presenter', { presenter: { type: 'clip', presenter_id: 'nobody' } }, 'presenter.presenter_id'],
    ['a talk presenter without source_url', { presenter: { type: 'talk' } }, 'presenter.source_url'],
    ['a photo over http', { presenter: { type: 'talk', source_url: 'http://img.test/a.jpg' } }, 'presenter.source_url'],
    ['a stored photo the caller does not own', { presenter: { type: 'talk', source_url: 's3://images/none.jpg' } }, 'presenter.source_url'],
    ['a thumbnail of ftp', { presenter: { type: 'talk', source_url: 'https://img.test/a.jpg', thumbnail: 'ftp://x/y.png' } }, 'presenter.thumbnail'],
    ['an unknown presenter field', { presenter: { type: 'clip', presenter_id: PRESENTER, driver_id: 'x' } }, 'presenter.driver_id'],
    ['a voice without voice_id', { presenter: { type: 'clip', presenter_id: PRESENTER, voice: { type: 'flite' } } }, 'presenter.voice.voice_id'],
    ['an unknown voice provider', { presenter: { type: 'clip', presenter_id: PRESENTER, voice: { type: 'nobody', voice_id: 'x' } } }, 'presenter.voice.type'],
    ['a voice this provider lacks', { presenter: { type: 'clip', presenter_id: PRESENTER, voice: { type: 'flite', voice_id: 'no-such-voice' } } }, 'presenter.voice.voice_id'],
    ['a background of both kinds', { presenter: { type: 'clip', presenter_id: PRESENTER, background: { color: '#00ff00', source_url: 'https://x.test/b.png' } } }, 'presenter.background'],
    ['a transparent background', { presenter: { type: 'clip', presenter_id: PRESENTER, background: { color: false } } }, 'presenter.background.color'],
    ['an unknown llm provider', { llm: { provider: 'google', model: 'gemini-2.5-flash' } }, 'llm.provider'],
    ['a temperature above 2', { llm: { provider: 'openai', base_url: 'http://localhost:1/v1', temperature: 2.5 } }, 'llm.temperature'],
    ['an unknown template', { llm: { provider: 'openai', base_url: 'http://localhost:1/v1', template: 'chatty' } }, 'llm.template'],
    ['a base_url of ftp', { llm: { provider: 'openai', base_url: 'ftp://x/v1' } }, 'llm.base_url'],
    ['api.openai.com without a secret', { llm: { provider: 'openai', model: 'gpt-4o-mini' } }, 'llm.secret_id'],
    ['tools that are not a list', { llm: { provider: 'openai', base_url: 'http://localhost:1/v1', tools: 'tool_1' } }, 'llm.tools'],
    ['the same tool twice', { llm: { provider: 'openai', base_url: 'http://localhost:1/v1', tools: ['tool_1', 'tool_1'] } }, 'llm.tools'],
    ['a custom llm without custom', { llm: { provider: 'custom' } }, 'llm.custom'],
    ['a custom llm without url', { llm: { provider: 'custom', custom: { type: 'basic' } } }, 'llm.custom.url'],
    ['a custom llm of type oauth2', { llm: { provider: 'custom', custom: { type: 'oauth2', url: 'https://llm.test' } } }, 'llm.custom.type'],
    ['an unknown llm field', { llm: { provider: 'openai', base_url: 'http://localhost:1/v1', max_tokens: 5 } }, 'llm.max_tokens'],
    ['greetings that are not strings', { greetings: [1] }, 'greetings.0'],
    ['more than 20 starter messages', { starter_message: Array.from({ length: 21 }, (_, i) => `q${i}`) }, 'starter_message'],
    ['a preview_name over 200 characters', { preview_name: 'x'.repeat(201) }, 'preview_name'],
    ['whitespace user_data', { user_data: '   ' }, 'user_data'],
    ['knowledge (no knowledge bases here)', { knowledge: { id: 'knl_1', provider: 'pinecone', embedder: { provider: 'azure-open-ai' } } }, 'knowledge'],
    ['triggers', { triggers: { 'chat/end': { webhooks: [] } } }, 'triggers'],
    ['an unknown top-level field', { advanced_settings: {} }, 'advanced_settings'],
  ];
  it.each(cases)('refuses %s with 400 naming the field', async (_name, extra, field) => {
    const h = make();
    const u = h.user();
    const body: Record<string, unknown> = { ...agent(), ...extra };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const res = await h.call('POST', '/agents', { key: u.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res.body), JSON.stringify(res.body)).toContain(field);
    expect((await h.call('GET', '/agents/me', { key: u.key })).body.agents).toEqual([]);
  });

  it('refuses a stored photo that is not an image, naming presenter.source_url', async () => {
    const h = make();
    const u = h.user();
    await h.services.mediaStore.put(u.id, 'images/a.jpg', Buffer.from('not a picture at all'), 'image/jpeg');
    const res = await h.call('POST', '/agents', { key: u.key, body: agent({ presenter: { type: 'talk', source_url: 's3://images/a.jpg' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res.body)).toContain('presenter.source_url');
  });

  it('accepts a stored photo of the caller and shows it as a signed URL', async () => {
    const h = make();
    const u = h.user();
    const jpg = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#888' } }).jpeg().toBuffer();
    await h.services.mediaStore.put(u.id, 'images/a.jpg', jpg, 'image/jpeg');
    const res = await h.call('POST', '/agents', { key: u.key, body: agent({ presenter: { type: 'talk', source_url: 's3://images/a.jpg' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.presenter.source_url).toBe('s3://images/a.jpg');
    expect(res.body.preview_thumbnail).toMatch(/^http:\/\/mimic\.test\/media\/.*images\/a\.jpg/);
  });

  it('needs the stitch permission for presenter.stitch', async () => {
    const h = make();
    const u = h.user();
    const body = agent({ presenter: { type: 'talk', source_url: 'https://img.test/a.jpg', stitch: true } });
    expect((await h.call('POST', '/agents', { key: u.key, body })).status).toBe(403);
    const s = h.user({ permissions: ['stitch'] });
    expect((await h.call('POST', '/agents', { key: s.key, body })).status).toBe(201);
  });

  it('refuses a credential over http with 400 naming the URL', async () => {
    const h = make();
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'llm', token: CANARY.bearer });
    const plain = await h.call('POST', '/agents', { key: u.key, body: agent({}, { secret_id: secret }) });
    expect(plain.status).toBe(400);
    expect(fieldsOf(plain.body)).toContain('llm.base_url');
    const custom = await h.call('POST', '/agents', { key: u.key, body: agent({}, { provider: 'custom', custom: { url: 'http://llm.test/chat' }, secret_id: secret, base_url: undefined, model: undefined }) });
    expect(custom.status).toBe(400);
    expect(fieldsOf(custom.body)).toContain('llm.custom.url');
  });
});

describe('credentials only by vault reference', () => {
  it.each([
    ['llm.custom.key', { provider: 'custom', custom: { type: 'basic', url: 'https://llm.test/chat', key: CANARY.apiKey } }],
    ['llm.custom.client_secret', { provider: 'custom', custom: { type: 'oauth2', url: 'https://llm.test/chat', client_id: 'c', client_secret: CANARY.clientSecret, token_url: 'https://llm.test/token' } }],
    ['llm.api_key', { provider: 'openai', api_key: CANARY.apiKey }],
    ['llm.custom.headers.Authorization', { provider: 'custom', custom: { url: 'https://llm.test/chat', headers: { Authorization: `Bearer ${CANARY.bearer}` } } }],
    ['llm.custom.headers.x-api-key', { provider: 'custom', custom: { url: 'https://llm.test/chat', headers: { 'x-api-key': CANARY.apiKey } } }],
    ['llm.base_url', { provider: 'openai', base_url: `https://me:${CANARY.basicPassword}@llm.test/v1` }],
    ['llm.custom.url', { provider: 'custom', custom: { url: `https://me:${CANARY.basicPassword}@llm.test/chat` } }],
  ])('refuses %s with 400 telling to store it as a secret, never echoing it nor storing it', async (field, llm) => {
    const h = make();
    const u = h.user();
    const res = await h.call('POST', '/agents', { key: u.key, body: { presenter: { type: 'clip', presenter_id: PRESENTER }, llm } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res.body)).toEqual([field]);
    expect(res.body.description).toMatch(/POST \/secrets.*llm\.secret_id/);
    // The harness's close() fails the test if a canary shows in any response, log line, audit row or the database file.
  });

  it('refuses a raw key added by PATCH too', async () => {
    const h = make();
    const u = h.user();
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({}, { provider: 'custom', custom: { url: 'https://llm.test/chat' }, base_url: undefined, model: undefined }) })).body;
    const res = await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: { llm: { custom: { key: CANARY.apiKey } } } });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['llm.custom.key']);
    expect(res.body.description).toMatch(/POST \/secrets.*llm\.secret_id/);
  });

  it('a secret named by an agent: its value never appears in any agent answer', async () => {
    const h = make();
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
    const created = await h.call('POST', '/agents', { key: u.key, body: agent({}, { base_url: 'https://llm.test/v1', secret_id: secret }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const answers = [
      created,
      await h.call('GET', `/agents/${created.body.id}`, { key: u.key }),
      await h.call('GET', '/agents/me', { key: u.key }),
      await h.call('PATCH', `/agents/${created.body.id}`, { key: u.key, body: { preview_name: 'Zed' } }),
      await h.call('DELETE', `/agents/${created.body.id}`, { key: u.key }),
    ];
    for (const r of answers) {
      expect(r.status).toBe(200 + (r === created ? 1 : 0));
      const text = JSON.stringify(r.body);
      expect(text).toContain(secret);
      expect(text).not.toContain(CANARY.bearer);
    }
  });

  it('a secret an agent uses cannot be deleted (409 naming the agent), as one a tool uses; it can once the agent lets go', async () => {
    const h = make();
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({}, { base_url: 'https://llm.test/v1', secret_id: secret }) })).body;
    const refused = await h.call('DELETE', `/secrets/${secret}`, { key: u.key });
    expect(refused.status).toBe(409);
    expect(refused.body.kind).toBe('ConflictError');
    expect(refused.body.description).toMatch(/1 agent\(s\)/);
    expect(refused.body.details).toEqual({ tool_ids: [], agent_ids: [a.id] });
    expect((await h.call('GET', `/agents/${a.id}`, { key: u.key })).body.llm.secret_id).toBe(secret);
    expect((await h.call('DELETE', `/agents/${a.id}`, { key: u.key })).status).toBe(200);
    expect((await h.call('DELETE', `/secrets/${secret}`, { key: u.key })).status).toBe(200);
  });
});

describe('tools and secrets of the agent belong to its user', () => {
  it('refuses another user\'s tool or a missing one with 400 naming llm.tools[i], saying the same for both', async () => {
    const h = make();
    const alice = h.user();
    const bob = h.user();
    const own = await makeTool(h, alice.key, toolBody('https://api.weather.test/v1?q={city}'));
    const bobs = await makeTool(h, bob.key, toolBody('https://api.weather.test/v1?q={city}'));
    const foreign = await h.call('POST', '/agents', { key: alice.key, body: agent({}, { tools: [own, bobs] }) });
    const missing = await h.call('POST', '/agents', { key: alice.key, body: agent({}, { tools: [own, 'tool_none'] }) });
    for (const res of [foreign, missing]) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['llm.tools[1]']);
    }
    expect(foreign.body.description.replace(bobs, 'X')).toBe(missing.body.description.replace('tool_none', 'X'));
    expect(JSON.stringify(foreign.body)).not.toContain('get_weather');
    expect((await h.call('GET', '/agents/me', { key: alice.key })).body.agents).toEqual([]);
  });

  it('refuses another user\'s secret or a missing one with 400 naming llm.secret_id', async () => {
    const h = make();
    const alice = h.user();
    const bob = h.user();
    const bobs = await makeSecret(h, bob.key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
    for (const id of [bobs, 'sec_none']) {
      const res = await h.call('POST', '/agents', { key: alice.key, body: agent({}, { base_url: 'https://llm.test/v1', secret_id: id }) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['llm.secret_id']);
    }
  });

  it('keeps the tools in the order given; a deleted tool leaves the agent', async () => {
    const h = make();
    const u = h.user();
    const t1 = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}', { name: 'one' }));
    const t2 = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}', { name: 'two' }));
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({}, { tools: [t2, t1] }) })).body;
    expect(a.llm.tools).toEqual([t2, t1]);
    expect((await h.call('DELETE', `/tools/${t2}`, { key: u.key })).status).toBe(200);
    expect((await h.call('GET', `/agents/${a.id}`, { key: u.key })).body.llm.tools).toEqual([t1]);
  });
});

describe('tenancy', () => {
  it('another user\'s agent is 404 on GET, PATCH and DELETE, and absent from their list', async () => {
    const h = make();
    const alice = h.user();
    const bob = h.user();
    const a = (await h.call('POST', '/agents', { key: alice.key, body: agent() })).body;
    expect((await h.call('GET', `/agents/${a.id}`, { key: bob.key })).status).toBe(404);
    expect((await h.call('PATCH', `/agents/${a.id}`, { key: bob.key, body: { preview_name: 'Mallory' } })).status).toBe(404);
    expect((await h.call('DELETE', `/agents/${a.id}`, { key: bob.key })).status).toBe(404);
    expect((await h.call('GET', '/agents/me', { key: bob.key })).body).toEqual({ agents: [] });
    expect((await h.call('GET', `/agents/${a.id}`, { key: alice.key })).body.preview_name).toBe('Emma');
  });

  it('needs an API key', async () => {
    const h = make();
    expect((await h.call('GET', '/agents/me')).status).toBe(401);
    expect((await h.call('POST', '/agents', { body: agent() })).status).toBe(401);
  });
});

describe('GET /agents/me', () => {
  it('lists newest first in pages; the token continues; sort_by/order accept only that order', async () => {
    const h = make();
    const u = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.call('POST', '/agents', { key: u.key, body: agent({ preview_name: `a${i}` }) })).body.id);
    const first = await h.call('GET', '/agents/me?limit=2', { key: u.key });
    expect(first.body.agents.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.token).toEqual(expect.any(String));
    const second = await h.call('GET', `/agents/me?limit=2&token=${first.body.token}`, { key: u.key });
    expect(second.body.agents.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const last = await h.call('GET', `/agents/me?limit=2&token=${second.body.token}`, { key: u.key });
    expect(last.body.agents.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect(last.body.token).toBeUndefined();
    expect((await h.call('GET', '/agents/me', { key: u.key })).body.agents).toHaveLength(5);
    expect((await h.call('GET', '/agents/me?sort_by=created_at&order=descending', { key: u.key })).status).toBe(200);
    for (const [q, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['token=%%%', 'token'], ['order=ascending', 'order'], ['sort_by=chats', 'sort_by']]) {
      const res = await h.call('GET', `/agents/me?${q}`, { key: u.key });
      expect(res.status, q).toBe(400);
      expect(fieldsOf(res.body)).toContain(field);
    }
  });
});

describe('PATCH /agents/{id}', () => {
  it('merges: fields given change, null removes, others stay, arrays are replaced, and the whole agent is checked', async () => {
    const h = make();
    const u = h.user();
    const t1 = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}', { name: 'one' }));
    const t2 = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}', { name: 'two' }));
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({ preview_description: 'd', greetings: ['hi', 'hello'] }, { tools: [t1], temperature: 0.5 }) })).body;
    const res = await h.call('PATCH', `/agents/${a.id}`, {
      key: u.key,
      body: { preview_name: 'Zoe', preview_description: null, greetings: ['hey'], llm: { tools: [t2, t1], temperature: null, instructions: 'Be terse.' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ id: a.id, preview_name: 'Zoe', greetings: ['hey'], presenter: a.presenter, created_at: a.created_at });
    expect(b.preview_description).toBeUndefined();
    expect(b.llm).toEqual({ ...a.llm, tools: [t2, t1], instructions: 'Be terse.', temperature: undefined });
    expect(Date.parse(b.modified_at)).toBeGreaterThanOrEqual(Date.parse(a.modified_at));
    expect(stable((await h.call('GET', `/agents/${a.id}`, { key: u.key })).body)).toEqual(stable(b));
  });

  it('an agent read with GET can be edited and sent back whole: the fields only shown are ignored, id and owner_id cannot change', async () => {
    const h = make();
    const u = h.user();
    const a = (await h.call('GET', `/agents/${(await h.call('POST', '/agents', { key: u.key, body: agent() })).body.id}`, { key: u.key })).body;
    const res = await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: { ...a, preview_name: 'Zoe', created_at: '2000-01-01T00:00:00.000Z' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(stable({ ...res.body, modified_at: a.modified_at })).toEqual(stable({ ...a, preview_name: 'Zoe' }));
    for (const field of ['id', 'owner_id']) {
      const moved = await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: { ...a, [field]: 'other' } });
      expect(moved.status).toBe(400);
      expect(fieldsOf(moved.body)).toEqual([field]);
    }
  });

  it('an empty patch changes nothing but is still checked', async () => {
    const h = make();
    const u = h.user();
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent() })).body;
    const res = await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: {} });
    expect(res.status).toBe(200);
    expect(stable({ ...res.body, modified_at: a.modified_at })).toEqual(stable(a));
  });

  it('a presenter of another type, or an llm of another provider, replaces the old one', async () => {
    const h = make();
    const u = h.user();
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent() })).body;
    const res = await h.call('PATCH', `/agents/${a.id}`, {
      key: u.key,
      body: { presenter: { type: 'talk', source_url: 'https://img.test/b.jpg' }, llm: { provider: 'custom', custom: { url: 'https://llm.test/chat', streaming: true } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.presenter).toEqual({ type: 'talk', source_url: 'https://img.test/b.jpg' });
    expect(res.body.llm).toEqual({ provider: 'custom', custom: { url: 'https://llm.test/chat', streaming: true }, tools: [] });
  });

  it('refuses a patch that leaves an invalid agent with 400 naming the field, and keeps the agent as it was', async () => {
    const h = make();
    const alice = h.user();
    const bob = h.user();
    const bobs = await makeTool(h, bob.key, toolBody('https://api.weather.test/v1?q={city}'));
    const a = (await h.call('POST', '/agents', { key: alice.key, body: agent() })).body;
    for (const [patch, field] of [
      [{ presenter: { presenter_id: 'nobody' } }, 'presenter.presenter_id'],
      [{ presenter: null }, 'presenter'],
      [{ llm: { temperature: 3 } }, 'llm.temperature'],
      [{ llm: { tools: [bobs] } }, 'llm.tools[0]'],
      [{ llm: { base_url: null } }, 'llm.secret_id'],
      [{ knowledge: { id: 'knl_1' } }, 'knowledge'],
      [{ unknown_field: 1 }, 'unknown_field'],
    ] as const) {
      const res = await h.call('PATCH', `/agents/${a.id}`, { key: alice.key, body: patch });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(fieldsOf(res.body), JSON.stringify(res.body)).toContain(field);
    }
    expect(stable((await h.call('GET', `/agents/${a.id}`, { key: alice.key })).body)).toEqual(stable(a));
  });

  it('a write landing between its read and its write is not lost: the patch is merged again over it', async () => {
    const h = make();
    const u = h.user();
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({ greetings: ['hi'] }) })).body;
    const deps = h.services.modules.agents.deps;
    const real = deps.store;
    let raced = false;
    deps.store = {
      ...real,
      async update(userId, id, version, values, at) {
        if (!raced) {
          raced = true;
          // Another writer changes the greetings after this PATCH read the agent.
          const current = (await real.get(userId, id))!;
          const body = { ...JSON.parse(current.body), greetings: ['hello from the other writer'] };
          await real.update(userId, id, current.version, { ...current, body: JSON.stringify(body) }, at);
        }
        return real.update(userId, id, version, values, at);
      },
    };
    const res = await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: { preview_name: 'Zoe' } });
    deps.store = real;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ preview_name: 'Zoe', greetings: ['hello from the other writer'] });
  });

  it('an unknown agent is 404; a body that is not an object is 400', async () => {
    const h = make();
    const u = h.user();
    expect((await h.call('PATCH', '/agents/agt_none', { key: u.key, body: { preview_name: 'x' } })).status).toBe(404);
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent() })).body;
    expect((await h.call('PATCH', `/agents/${a.id}`, { key: u.key, body: [1] })).status).toBe(400);
  });
});

describe('DELETE /agents/{id}', () => {
  it('answers the deleted agent, after which it is 404 and gone from the list; its tools stay', async () => {
    const h = make();
    const u = h.user();
    const tool = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}'));
    const a = (await h.call('POST', '/agents', { key: u.key, body: agent({}, { tools: [tool] }) })).body;
    const res = await h.call('DELETE', `/agents/${a.id}`, { key: u.key });
    expect(res.status).toBe(200);
    expect(stable(res.body)).toEqual(stable(a));
    expect((await h.call('GET', `/agents/${a.id}`, { key: u.key })).status).toBe(404);
    expect((await h.call('DELETE', `/agents/${a.id}`, { key: u.key })).status).toBe(404);
    expect((await h.call('GET', '/agents/me', { key: u.key })).body.agents).toEqual([]);
    expect((await h.call('GET', `/tools/${tool}`, { key: u.key })).status).toBe(200);
  });
});

describe('GET /agents/{id}/runtime', () => {
  it('answers what the agents SDK reads: name, avatar type and voice, greetings and starters; 404 across users', async () => {
    const h = make();
    const u = h.user();
    const voice = { type: 'flite', voice_id: 'en-US-flite-slt', language: 'English (United States)' };
    const clip = (await h.call('POST', '/agents', {
      key: u.key,
      body: agent({ preview_description: 'Helps', greetings: ['Hi!'], starter_message: ['Weather?'], presenter: { type: 'clip', presenter_id: PRESENTER, voice } }),
    })).body;
    const res = await h.call('GET', `/agents/${clip.id}/runtime`, { key: u.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: clip.id,
      owner_id: u.id,
      name: 'Emma',
      description: 'Helps',
      avatar: { type: 'clip', thumbnail: expect.stringMatching(/^http:\/\/mimic\.test\/media\//), voice: { type: 'flite', voice_id: 'en-US-flite-slt', language: 'English (United States)' } },
      greetings: ['Hi!'],
      starter_message: ['Weather?'],
    });
    const talk = (await h.call('POST', '/agents', { key: u.key, body: agent({ preview_name: undefined, presenter: { type: 'talk', source_url: 'https://images.example/face.jpg' } }) })).body;
    const bare = (await h.call('GET', `/agents/${talk.id}/runtime`, { key: u.key })).body;
    expect(bare).toMatchObject({ name: '', avatar: { type: 'talk', thumbnail: 'https://images.example/face.jpg', voice: { type: 'flite' } }, greetings: [], starter_message: [] });
    expect(bare.avatar.type).not.toBe('expressive');
    expect((await h.call('GET', `/agents/${clip.id}/runtime`, { key: h.user().key })).status).toBe(404);
    expect((await h.call('GET', '/agents/agt_nope/runtime', { key: u.key })).status).toBe(404);
    expect((await h.call('GET', `/agents/${clip.id}/runtime`)).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the agent operations with the schemas that validate them', async () => {
    const h = make();
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/agents'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/agents/me'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/agents/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(doc.paths['/agents/{id}/runtime'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentRuntime' });
    const create = doc.paths['/agents'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateAgent' });
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Agent' });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413', '503']));
    expect(doc.paths['/agents/{id}'].patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateAgent' });
    expect(Object.keys(doc.paths['/agents/{id}'].patch.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409']));
    expect(doc.paths['/agents/me'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'token', 'sort_by', 'order']);
    const published = doc.components.schemas.CreateAgent;
    const validating = JSON.parse(JSON.stringify(h.services.modules.agents.deps.schemas.CreateAgent));
    expect(published.required).toEqual(['presenter', 'llm']);
    expect(published.additionalProperties).toBe(false);
    for (const name of ['OpenAiAgentLlm', 'CustomAgentLlm']) {
      expect(doc.components.schemas[name].properties.secret_id).toBeDefined();
      expect(doc.components.schemas[name].additionalProperties).toBe(false);
    }
    // No field of the published contract can carry a key.
    expect(doc.components.schemas.CustomAgentLlmEndpoint.properties.key).toBeUndefined();
    expect(published.properties.user_data).toEqual(validating.properties.user_data);
    expect(doc.components.schemas.Agent.properties.llm).toBeDefined();
    expect(doc.components.schemas.AgentList.properties.token).toBeDefined();
  });
});
