import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { attachSockets, type SocketServer } from '../../src/http/sockets.ts';
import { createLogger } from '../../src/log.ts';
import type { SocketCaller, SocketRoute } from '../../src/platform/module.ts';

/** The platform's WebSocket endpoints on a bare HTTP server: a route that echoes, a key check, a fast heartbeat. */

const KEY = `mimic_${'k'.repeat(43)}`;
/** A bearer token's shape (a JWS); the verifier below stands in for the accounts capability's. */
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c3JfMiJ9.c2ln';
let server: Server;
let sockets: SocketServer;
let url: string;
const callers: SocketCaller[] = [];
const echo: SocketRoute = { path: '/echo', open: (_s, caller) => void callers.push(caller), message: (s, _c, text) => void s.send(`echo:${text}`) };
/** A route with its own credential (a token in the URL, as a signed URL is) that takes binary messages. */
const signed: SocketRoute<{ grant: string }> = {
  path: '/signed',
  authorize: async (u) => (u.searchParams.get('token') === 'good' ? { grant: 'g1' } : null),
  open: (s, caller) => void s.send(`grant:${caller.grant}`),
  binary: (s, _c, data) => void s.sendBinary(Buffer.concat([Buffer.from([0xff]), data])),
};

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sockets = attachSockets(server, {
    routes: [echo, signed] as SocketRoute<unknown>[],
    verifyKey: async (k) => (k === KEY ? { id: 'usr_1', name: null, permissions: [] } : null),
    verifyToken: async (t) => (t === TOKEN ? { id: 'usr_2', name: null, permissions: [], via: 'token' } : null),
    corsOrigins: [],
    publicUrl: 'http://mimic.test',
    log: createLogger(() => {}),
    // Long enough that a loaded machine still answers a ping within one beat.
    heartbeatMs: 1000,
  });
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/echo?authorization=${encodeURIComponent(`Bearer ${KEY}~conn_1`)}`;
});
afterAll(async () => {
  await sockets.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const opened = (ws: WebSocket) => new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

describe('socket endpoints', () => {
  it('hands the route the caller with its connection id, and text messages; a binary one closes with 1003', async () => {
    const ws = new WebSocket(url);
    await opened(ws);
    expect(callers.at(-1)).toMatchObject({ user: { id: 'usr_1' }, connectionId: 'conn_1' });
    const reply = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
    ws.send('hi');
    expect(await reply).toBe('echo:hi');
    const code = closed(ws);
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await code).toBe(1003);
  });

  it('accepts a bearer token in ?authorization= (browsers cannot set headers on a WebSocket); a bad one is 401', async () => {
    const base = url.replace(/\?.*$/, '');
    const ws = new WebSocket(`${base}?authorization=${encodeURIComponent(`Bearer ${TOKEN}~conn_2`)}`);
    await opened(ws);
    expect(callers.at(-1)).toMatchObject({ user: { id: 'usr_2', via: 'token' }, connectionId: 'conn_2' });
    ws.close();
    const refused = new WebSocket(`${base}?authorization=${encodeURIComponent(`Bearer ${TOKEN}x`)}`);
    const status = await new Promise<number>((r) => refused.once('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });

  it('a route with its own credential: no API key needed, a bad token is 401, binary messages both ways', async () => {
    const base = url.replace(/\/echo\?.*$/, '/signed');
    const refused = new WebSocket(`${base}?token=bad`);
    const status = await new Promise<number>((r) => refused.once('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
    const ws = new WebSocket(`${base}?token=good`);
    const first = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
    await opened(ws);
    expect(await first).toBe('grant:g1');
    const back = new Promise<Buffer>((r) => ws.once('message', (d) => r(d as Buffer)));
    ws.send(Buffer.from([1, 2]), { binary: true });
    expect([...(await back)]).toEqual([0xff, 1, 2]);
    ws.close();
  });

  it('pings: a socket that answers stays, one that never answers is dropped', async () => {
    const live = new WebSocket(url);
    const silent = new WebSocket(url, { autoPong: false });
    await Promise.all([opened(live), opened(silent)]);
    let pings = 0;
    live.on('ping', () => pings++);
    expect(await closed(silent)).toBe(1006);
    // The live one heard the same pings and answered them.
    expect(pings).toBeGreaterThan(0);
    expect(live.readyState).toBe(WebSocket.OPEN);
    live.close();
  });
});
