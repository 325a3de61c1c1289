import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../helpers/tls.ts';
import { ENCODED_CANARY, leakedIn } from '../helpers/canaries.ts';
import { makeSecret, makeTool, toolBody } from '../helpers/tools.ts';
import { answerFrames, openNotifications, sdkQuery, serveHarness } from '../helpers/notifications.ts';
import { chunk, writeEvents } from '../llm/model-server.ts';
import { connect, streamHarness, type Connected, type StreamHarness } from '../streams/helpers.ts';
import { importOAuth2Grant } from '../../src/secrets/oauth2-import.ts';
import type { Harness } from '../helpers/harness.ts';

/**
 * Issue 17: an upstream that echoes its request back in base64, base64url, hex and percent
 * encoding, with tokens whose encodings hold `+`, `/` and `=`. An agent with four tools (one
 * per secret type) calls them all; its model (a loopback server) repeats what the tools
 * answered. No form of any credential may reach the model's requests, the answer (JSON,
 * server-sent events, notifications frames, the live stream's `chat/answer` message), the
 * stored chat, or the database file and its WAL. Loopback is allowed by configuration
 * (MIMIC_EGRESS_ALLOW) for this harness only.
 */

const enc = (s: string, how: BufferEncoding) => Buffer.from(s, 'utf8').toString(how);

/** An upstream that sends back the credential it got, in every encoding a careless API might use. */
function encodedEcho(req: ReceivedRequest, res: ServerResponse): void {
  const auth = String(req.headers.authorization ?? '');
  const apiKey = String(req.headers['x-key'] ?? '');
  const pair = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  const secret = auth.startsWith('Bearer ') ? auth.slice(7) : apiKey || pair.slice(pair.indexOf(':') + 1);
  const block = `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`).join('\r\n')}\r\n\r\n`;
  const body = {
    b64: enc(secret, 'base64'),
    b64_unpadded: enc(secret, 'base64').replace(/=+$/, ''),
    b64url: enc(secret, 'base64url'),
    b64url_padded: enc(secret, 'base64').replaceAll('+', '-').replaceAll('/', '_'),
    header_b64: auth.startsWith('Bearer ') ? enc(auth, 'base64') : enc(apiKey || pair, 'base64'),
    header_b64url: auth.startsWith('Bearer ') ? enc(auth, 'base64url') : enc(apiKey || pair, 'base64url'),
    hex: enc(secret, 'hex'),
    HEX: enc(secret, 'hex').toUpperCase(),
    percent: encodeURIComponent(secret),
    // The whole request echoed as one blob, at each of base64's three byte alignments.
    blocks: [0, 1, 2].map((k) => enc(`${'.'.repeat(k)}${block}`, 'base64')),
    blocks_url: [0, 1, 2].map((k) => enc(`${'.'.repeat(k)}${block}`, 'base64url')),
  };
  res.writeHead(200, { 'content-type': 'application/json', 'x-echo-b64': enc(auth || apiKey, 'base64') });
  res.end(JSON.stringify(body));
}

const TYPES = ['bearer', 'oauth2', 'api_key', 'basic'] as const;

let model: TestServer;
let upstream: TestServer;
let t: StreamHarness;
let h: Harness;
let key: string;
let agent: string;
let chat: string;
let served: Awaited<ReturnType<typeof serveHarness>>;
const peers: Connected['peer'][] = [];

beforeAll(async () => {
  model = await startTlsServer();
  upstream = await startTlsServer(encodedEcho);
  t = streamHarness({ MIMIC_EGRESS_ALLOW: 'localhost' }, undefined, { ca: [model.ca, upstream.ca] });
  h = t.h;
  const user = h.user();
  key = user.key;
  served = await serveHarness(h);
  const secrets = {
    bearer: await makeSecret(h, key, { type: 'bearer', provider: 'p', token: ENCODED_CANARY.bearer }),
    oauth2: (await importOAuth2Grant(h.services.modules.secrets.deps, {
      userId: user.id, provider: 'p', tokenUrl: `${upstream.url}/oauth/token`, clientId: 'cid', clientSecret: ENCODED_CANARY.clientSecret,
      accessToken: ENCODED_CANARY.accessToken, refreshToken: ENCODED_CANARY.refreshToken, expiresIn: 3600,
    })).id,
    api_key: await makeSecret(h, key, { type: 'api_key', provider: 'p', api_key: ENCODED_CANARY.apiKey, header_name: 'X-Key' }),
    basic: await makeSecret(h, key, { type: 'basic', provider: 'p', username: ENCODED_CANARY.basicUser, password: ENCODED_CANARY.basicPassword }),
  };
  const tools = [];
  for (const type of TYPES) tools.push(await makeTool(h, key, toolBody(`${upstream.url}/echo`, { secretId: secrets[type], name: `echo_${type}` })));
  const created = await h.call('POST', '/agents', {
    key,
    body: { presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' }, llm: { provider: 'openai', model: 'gpt-test', base_url: `${model.url}/v1`, tools } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  agent = created.body.id;
  chat = (await h.call('POST', `/agents/${agent}/chat`, { key, body: { persist: true } })).body.id;
  // The model calls all four tools, then repeats every result it read, word for word.
  model.handle((req, res) => {
    const messages = (JSON.parse(req.body.toString()) as { messages: { role: string; content: string }[] }).messages;
    if (messages.at(-1)!.role !== 'tool') {
      const calls = TYPES.map((type, index) => ({ index, id: `call_${type}`, type: 'function', function: { name: `echo_${type}`, arguments: '{"city":"Oslo"}' } }));
      return writeEvents(res, [chunk({ tool_calls: calls }), chunk({}, 'tool_calls')]);
    }
    const results = messages.filter((m) => m.role === 'tool').map((m) => m.content);
    writeEvents(res, [chunk({ content: 'The tools said: ' }), ...results.map((r) => chunk({ content: `${r} ` })), chunk({}, 'stop')]);
  });
});
afterAll(async () => {
  for (const p of peers) p.close();
  await served.close();
  await h.close(); // the harness's own canary check: every response, log line, audit row and the database files
  await model.close();
  await upstream.close();
});

const ask = (extra: { path?: string; connection?: string; body?: Record<string, unknown> } = {}) =>
  h.call('POST', `/agents/${agent}/chat/${chat}${extra.path ?? ''}`, {
    headers: { authorization: `Basic ${key}${extra.connection ? `~${extra.connection}` : ''}` },
    body: { messages: [{ role: 'user', content: 'Call every tool.' }], ...extra.body },
  });

/** Runs one answer; answers what leaked into the channel and into the model's requests of that answer. */
async function leaksOf(channel: () => Promise<string>): Promise<{ channel: string[]; model: string[] }> {
  model.received.length = 0;
  upstream.received.length = 0;
  const seen = await channel();
  // The canaries were really in play: every upstream got its credential.
  expect(upstream.received).toHaveLength(4);
  expect(leakedIn(JSON.stringify(upstream.received.map((r) => r.headers))).length).toBeGreaterThanOrEqual(4);
  expect(model.received).toHaveLength(2);
  return { channel: leakedIn(seen), model: leakedIn(model.received.map((r) => r.body.toString('latin1')).join('\n')) };
}

describe('credentials echoed in base64, base64url, hex and percent encoding', () => {
  it('reach neither the model nor the JSON answer', async () => {
    const leaks = await leaksOf(async () => {
      const res = await ask();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result).toContain('•••••••••');
      return JSON.stringify(res.body);
    });
    expect(leaks).toEqual({ channel: [], model: [] });
  });

  it('reach neither the model nor the server-sent events', async () => {
    const leaks = await leaksOf(async () => {
      const res = await ask({ path: '?stream=true' });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      expect(res.body).toContain('event: answer');
      return res.body as string;
    });
    expect(leaks).toEqual({ channel: [], model: [] });
  });

  it('reach neither the model nor the notifications frames', async () => {
    const socket = await openNotifications(served.base, sdkQuery(key, 'conn_enc'));
    const leaks = await leaksOf(async () => {
      const res = await ask({ connection: 'conn_enc' });
      expect(res.body.result).toBe('');
      const frames = await answerFrames(socket);
      expect(frames.at(-1)!.event).toBe('chat/answer');
      return JSON.stringify(frames);
    });
    socket.ws.close();
    expect(leaks).toEqual({ channel: [], model: [] });
  });

  it('reach neither the model nor the live stream\'s chat/answer message', async () => {
    const s = await connect(h, key, `/agents/${agent}/streams`, {});
    peers.push(s.peer);
    const leaks = await leaksOf(async () => {
      const res = await ask({ body: { streamId: s.id, sessionId: s.sessionId } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return s.peer.waitFor('chat/answer', { timeoutMs: 60_000 });
    });
    expect(leaks).toEqual({ channel: [], model: [] });
  });

  it('are not in the stored chat, nor in the database file or its WAL', async () => {
    const stored = await h.call('GET', `/agents/${agent}/chat/${chat}`, { key });
    expect(stored.body.messages.filter((m: { role: string }) => m.role === 'tool').length).toBeGreaterThanOrEqual(4);
    const file = h.config.databaseFile;
    const raw = [file, `${file}-wal`].map((f) => readFileSync(f).toString('latin1')).join('\n');
    expect({ record: leakedIn(JSON.stringify(stored.body)), files: leakedIn(raw) }).toEqual({ record: [], files: [] });
  });
});
