import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { chunk, writeEvents } from '../llm/model-server.ts';
import { answerFrames, openNotifications, sdkQuery, serveHarness } from '../helpers/notifications.ts';
import type { SocketServer } from '../../src/http/sockets.ts';

/**
 * The notifications WebSocket as the agents SDK uses it, on a real HTTP server: opened at
 * `/notifications?authorization=<its Authorization header, URL-encoded>`, tied to the chat
 * requests of the same `~<connection id>`; `partial` frames as the model streams, then
 * `chat/answer`, and the HTTP answer's `result` is "".
 */

let model: TestServer;
let h: Harness;
let served: Awaited<ReturnType<typeof serveHarness>>;
let sockets: SocketServer;
let base: string;
let key: string;
let otherKey: string;
let agent: string;
let chat: string;
const ORIGIN = 'https://app.example.com';

const open = (query: string, opts: Parameters<typeof openNotifications>[2] = {}) => openNotifications(base, query, opts);
const refusedStatus = (p: Promise<unknown>) => p.then(() => 'opened', (err: { status?: number }) => err.status);

const ask = (connection: string | undefined, content: string) =>
  h.call('POST', `/agents/${agent}/chat/${chat}`, {
    headers: { authorization: `Basic ${key}${connection ? `~${connection}` : ''}` },
    body: { messages: [{ role: 'user', content }] },
  });

beforeAll(async () => {
  model = await startTlsServer();
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_CORS_ORIGINS: ORIGIN }, { ca: [model.ca], voices: toneCatalogue('local').catalogue });
  ({ key } = h.user());
  ({ key: otherKey } = h.user());
  served = await serveHarness(h);
  ({ base, sockets } = served);
  const created = await h.call('POST', '/agents', {
    key,
    body: { presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' }, llm: { provider: 'openai', model: 'gpt-test', base_url: `${model.url}/v1` } },
  });
  agent = created.body.id;
  chat = (await h.call('POST', `/agents/${agent}/chat`, { key })).body.id;
});
afterAll(async () => {
  await served.close();
  await h.close();
  await model.close();
});
beforeEach(() => {
  model.handle((req, res) => {
    const asked = JSON.parse(req.body.toString()).messages.at(-1).content as string;
    writeEvents(res, [chunk({ content: 'You said ' }), chunk({ content: `${asked}.` }), chunk({}, 'stop')]);
  });
});

describe('the notifications socket', () => {
  it('carries the answer of the chat requests of its own connection, and result is ""', async () => {
    const mine = await open(sdkQuery(key, 'conn_a'));
    const sibling = await open(sdkQuery(key, 'conn_b'));
    const res = await ask('conn_a', 'one');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ result: '', matches: [], documentIds: [], chatMode: 'Functional' });
    expect(await answerFrames(mine)).toEqual([
      { event: 'partial', content: 'You said ', sequence: 0 },
      { event: 'partial', content: 'one.', sequence: 1 },
      { event: 'chat/answer', content: 'You said one.' },
    ]);
    // The other connection's first frames are those of its own answer, numbered from 0 again.
    expect((await ask('conn_b', 'two')).body.result).toBe('');
    expect(await answerFrames(sibling)).toEqual([
      { event: 'partial', content: 'You said ', sequence: 0 },
      { event: 'partial', content: 'two.', sequence: 1 },
      { event: 'chat/answer', content: 'You said two.' },
    ]);
    expect(mine.frames).toEqual([]);
    mine.ws.close();
    sibling.ws.close();
  });

  it('leaves the text in the answer when no socket of the connection is open, or the request has no connection id', async () => {
    const plain = await open(sdkQuery(key));
    expect((await ask(undefined, 'three')).body.result).toBe('You said three.');
    expect((await ask('conn_gone', 'four')).body.result).toBe('You said four.');
    // Another user's socket on the same connection id hears nothing either.
    const foreign = await open(sdkQuery(otherKey, 'conn_c'));
    expect((await ask('conn_c', 'five')).body.result).toBe('You said five.');
    expect(plain.frames).toEqual([]);
    expect(foreign.frames).toEqual([]);
    plain.ws.close();
    foreign.ws.close();
  });

  it('takes the key in the Authorization header too, and refuses what HTTP refuses', async () => {
    const viaHeader = await open('', { headers: { authorization: `Basic ${key}~conn_h` } });
    await ask('conn_h', 'six');
    expect((await answerFrames(viaHeader)).at(-1)).toEqual({ event: 'chat/answer', content: 'You said six.' });
    viaHeader.ws.close();
    expect(await refusedStatus(open(''))).toBe(401);
    expect(await refusedStatus(open(sdkQuery('mimic_not-a-real-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')))).toBe(401);
    expect(await refusedStatus(open(sdkQuery(key), { origin: 'https://evil.example' }))).toBe(403);
    expect(await refusedStatus(open(sdkQuery(key), { path: '/elsewhere' }))).toBe(404);
    const fromApp = await open(sdkQuery(key), { origin: ORIGIN });
    fromApp.ws.close();
  });

  it('closes a socket that sends a message over the size limit with 1009', async () => {
    const s = await open(sdkQuery(key, 'conn_big'));
    s.ws.send('x'.repeat(2000));
    expect((await s.closed).code).toBe(1009);
  });

  it('closes every socket with 1001 at shutdown and refuses new ones', async () => {
    const a = await open(sdkQuery(key, 'conn_z'));
    await sockets.close();
    expect(await a.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(sockets.count()).toBe(0);
    expect(await refusedStatus(open(sdkQuery(key)))).not.toBe('opened');
  });
});
