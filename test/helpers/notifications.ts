import { serve, type ServerType } from '@hono/node-server';
import { WebSocket } from 'ws';
import { serveSockets } from '../../src/server.ts';
import type { SocketServer } from '../../src/http/sockets.ts';
import type { Harness } from './harness.ts';

/** A notifications socket a test opened, and the frames it got so far. */
export interface OpenedSocket {
  ws: WebSocket;
  frames: { event: string; content: string; sequence?: number }[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens `base + path + query` as the agents SDK does; rejects with the HTTP status when the upgrade is refused. */
export function openNotifications(base: string, query: string, opts: { headers?: Record<string, string>; origin?: string; path?: string } = {}): Promise<OpenedSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base}${opts.path ?? '/notifications'}${query}`, { ...(opts.headers ? { headers: opts.headers } : {}), ...(opts.origin ? { origin: opts.origin } : {}) });
    const frames: OpenedSocket['frames'] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
    ws.on('open', () => resolve({ ws, frames, closed }));
    ws.on('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode })));
    ws.on('error', (err) => reject(err));
  });
}

/** The SDK's query: its Authorization header, with the `~<connection id>` suffix, URL-encoded. */
export const sdkQuery = (key: string, connection?: string) => `?authorization=${encodeURIComponent(`Basic ${key}${connection ? `~${connection}` : ''}`)}`;

/** Waits until `frames` holds a `chat/answer` (every frame before it has arrived: one socket keeps order), and takes them. */
export async function answerFrames(s: OpenedSocket): Promise<OpenedSocket['frames']> {
  for (let i = 0; i < 2000 && !s.frames.some((f) => f.event === 'chat/answer'); i++) await new Promise((r) => setTimeout(r, 10));
  return s.frames.splice(0);
}

/** The harness's app on a real loopback HTTP server with the modules' sockets, as the notifications socket needs. */
export async function serveHarness(h: Harness): Promise<{ base: string; sockets: SocketServer; close(): Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const sockets = serveSockets(server, h.services);
  const address = server.address();
  const base = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    base,
    sockets,
    async close() {
      await sockets.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
