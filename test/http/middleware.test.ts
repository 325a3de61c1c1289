import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { AppEnv } from '../../src/http/env.ts';
import { errorHandler, notFoundHandler } from '../../src/http/errors.ts';
import { bodyLimit, newRequestId, requestContext } from '../../src/http/middleware.ts';
import { ApiError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';

const LIMIT = 64;

/** A tiny app with the middleware in the order createApp uses, and a record of log lines. */
function tinyApp() {
  const logs: string[] = [];
  const log = createLogger((l) => logs.push(l));
  const app = new Hono<AppEnv>();
  app.use(requestContext(log, true));
  app.onError(errorHandler(log));
  app.notFound(notFoundHandler);
  // As createApp mounts them: a route's own chain (its body limit, the key check where it needs one).
  const limited = bodyLimit(LIMIT);
  const auth = async () => {
    throw new ApiError('AuthorizationError', 'no key');
  };
  app.get('/ok', (c) => c.json({ ok: true }));
  app.get('/private', auth, (c) => c.json({ ok: true }));
  app.get('/boom', () => {
    throw new ApiError('BadRequestError', 'bad');
  });
  app.post('/echo', limited, async (c) => c.json({ length: (await c.req.text()).length }));
  app.post('/stream', async (c) => c.json({ length: (await c.req.text()).length }));
  return { app, logs };
}

describe('request ids', () => {
  it('are req_ and 16 hex digits, and distinct across many more than one random batch', () => {
    const ids = Array.from({ length: 2000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('come back in x-request-id on answers, errors and unknown routes, and match the log line', async () => {
    const { app, logs } = tinyApp();
    for (const [path, status] of [['/ok', 200], ['/boom', 400], ['/nowhere', 404], ['/private', 401]] as const) {
      const res = await app.request(path);
      expect(res.status).toBe(status);
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^req_[0-9a-f]{16}$/);
      const line = JSON.parse(logs.at(-1)!) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 'info', msg: 'request', request_id: id, method: 'GET', path, status });
      expect(typeof line.duration_ms).toBe('number');
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
    }
  });

  it('writes no request line when request logging is off', async () => {
    const logs: string[] = [];
    const app = new Hono<AppEnv>().use(requestContext(createLogger((l) => logs.push(l)), false)).get('/ok', (c) => c.json({}));
    const res = await app.request('/ok');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(logs).toEqual([]);
  });
});

describe('body limits, in process (no Content-Length: the body is counted)', () => {
  it('passes a body within the limit and refuses a larger one with 413', async () => {
    const { app } = tinyApp();
    const small = await app.request('/echo', { method: 'POST', body: 'x'.repeat(LIMIT) });
    expect(small.status).toBe(200);
    expect(await small.json()).toEqual({ length: LIMIT });
    const big = await app.request('/echo', { method: 'POST', body: 'x'.repeat(LIMIT + 1) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ kind: 'PayloadTooLargeError' });
  });

  it('leaves a route whose limit is null alone', async () => {
    const { app } = tinyApp();
    const res = await app.request('/stream', { method: 'POST', body: 'x'.repeat(LIMIT * 4) });
    expect(await res.json()).toEqual({ length: LIMIT * 4 });
  });
});

describe('body limits over a real socket (@hono/node-server)', () => {
  let server: ServerType;
  let base: string;
  beforeAll(async () => {
    const { app } = tinyApp();
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (body: string | Readable, headers: Record<string, string> = {}) => {
    const res = await request(`${base}/echo`, { method: 'POST', body, headers });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, id: res.headers['x-request-id'] };
  };

  it('decides from Content-Length: within the limit passes, one byte over is 413', async () => {
    const ok = await post('y'.repeat(LIMIT), { 'content-type': 'text/plain' });
    expect(ok).toMatchObject({ status: 200, body: { length: LIMIT } });
    expect(ok.id).toMatch(/^req_[0-9a-f]{16}$/);
    const big = await post('y'.repeat(LIMIT + 1));
    expect(big).toMatchObject({ status: 413, body: { kind: 'PayloadTooLargeError' } });
    expect(big.id).toMatch(/^req_/);
  });

  it('counts a chunked body as it streams, and refuses it past the limit', async () => {
    async function* chunks(n: number) {
      for (let i = 0; i < n; i++) yield 'z'.repeat(16);
    }
    expect(await post(Readable.from(chunks(LIMIT / 16)))).toMatchObject({ status: 200, body: { length: LIMIT } });
    expect(await post(Readable.from(chunks(LIMIT / 16 + 1)))).toMatchObject({ status: 413, body: { kind: 'PayloadTooLargeError' } });
  });
});
