/**
 * The CPU each part of mimic's request path costs per request, in process: the same request
 * is answered by apps built up one part at a time (the real middleware, verifier, rate
 * limiter, logger and handlers of a service on a temp data dir), and each part's cost is
 * the difference to the app without it. No sockets: requests go to `app.fetch` with Node's
 * parsed headers and a response stub as @hono/node-server would hand them, so the parts take
 * their Node paths. CPU is process.cpuUsage() over N sequential requests, median of ROUNDS.
 *
 *   node --import tsx bench/http-parts.ts > /dev/null     (the request log goes to stdout; results to stderr)
 *
 * Then each part alone (the key check, the rate limiter, the log line, a signed media URL, an
 * ApiError...), called N times in a loop: what it costs without the chain around it.
 *
 * Env: PARTS_N (requests per measurement, default 20000), PARTS_ROUNDS (default 5), PARTS_ONLY=alone
 * (only the parts alone).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono, type Handler, type MiddlewareHandler } from 'hono';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/server.ts';
import { issueKey } from '../src/users/accounts.ts';
import { USERS } from '../src/users/contract.ts';
import { deriveKey } from '../src/keys.ts';
import { randomId } from '../src/clock.ts';
import { createLogger } from '../src/log.ts';
import { requestContext, bodyLimit, newRequestId } from '../src/http/middleware.ts';
import { ApiError } from '../src/errors.ts';
import { signText } from '../src/url-signature.ts';
import { requireAuth } from '../src/http/auth.ts';
import { createMemoryRateLimiter, rateLimitPerKey } from '../src/http/rate-limit/index.ts';
import { errorHandler } from '../src/http/errors.ts';
import type { AppEnv } from '../src/http/env.ts';
import { median } from './stats.ts';

const N = Number(process.env.PARTS_N ?? 20000);
const ROUNDS = Number(process.env.PARTS_ROUNDS ?? 5);
const dataDir = mkdtempSync(join(tmpdir(), 'mimic-bench-parts-'));
const out = (line: string) => process.stderr.write(line + '\n');

const config = loadConfig({
  MIMIC_DATA_DIR: dataDir,
  PORT: '8080',
  MIMIC_PUBLIC_URL: 'http://127.0.0.1:8080',
  MIMIC_WORKER: 'false',
  MIMIC_RATE_LIMIT: '1000000000',
  MIMIC_RATE_LIMIT_BURST: '1000000000',
});
const log = createLogger();
const services = createServices(config, { log });
const users = { users: services.find(USERS)!, clock: services.clock, newId: randomId, apiKeyHashKey: deriveKey(config.masterKey, 'api-key-hash') };
const { row, apiKey } = issueKey(users);
const userId = randomId('usr');
await users.users.create({ id: userId, name: null, credits: 10, permissions: [], createdAt: row.createdAt }, row);

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
const auth = { authorization: `Basic ${apiKey}`, 'content-type': 'application/json' };
const badBody = JSON.stringify({ source_url: 'ftp://example.com/a.png', config: { mute: 'yes' } });
const outgoing = { setHeader() {} };

async function answer(app: Hono<AppEnv>, r: Req): Promise<number> {
  const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
  const req = new Request(`http://127.0.0.1:8080${r.path}`, { method: r.method, headers, ...(r.body !== undefined ? { body: r.body } : {}) });
  const res = await app.fetch(req, { incoming: { headers }, outgoing });
  await res.text();
  return res.status;
}

/** CPU µs per request of `app` answering `r` (median of ROUNDS runs of N). */
async function cost(app: Hono<AppEnv>, r: Req, expect: number): Promise<number> {
  const status = await answer(app, r);
  if (status !== expect) throw new Error(`${r.method} ${r.path} answered ${status}, expected ${expect}`);
  for (let i = 0; i < N / 4; i++) await answer(app, r);
  const us: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) await answer(app, r);
    const used = process.cpuUsage(before);
    us.push((used.user + used.system) / N);
  }
  return median(us);
}

/** An app of the given middleware in front of `handler` at `path`, with the service's error boundary. */
function layered(method: 'get' | 'post', path: string, chain: MiddlewareHandler<AppEnv>[], handler: Handler<AppEnv>, front: MiddlewareHandler<AppEnv>[] = []): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const m of front) app.use(m);
  app.onError(errorHandler(log));
  app.on([method.toUpperCase()], [path], ...(chain as []), handler);
  return app;
}

const route = (method: string, path: string) => services.routes.find((r) => r.method === method && r.path === path)!;
const created = await buildApp(services).request('/animations', { method: 'POST', headers: auth, body: '{}' });
if (created.status !== 201) throw new Error(`POST /animations answered ${created.status}`);
const animationId = ((await created.json()) as { id: string }).id;

const ctxOff = requestContext(log, false);
const ctxOn = requestContext(log, true);
const verify = requireAuth(services.verifyKey);
const limit = rateLimitPerKey(createMemoryRateLimiter(config.rateLimit!));
const body = bodyLimit(config.maxBodyBytes);
const ok: Handler<AppEnv> = (c) => c.json({ status: 'ok' });
const getReq: Req = { method: 'GET', path: `/animations/${animationId}`, headers: auth };
const badReq: Req = { method: 'POST', path: '/animations', headers: auth, body: badBody };
const getHandler = route('get', '/animations/{id}').handler;
const postHandler = route('post', '/animations').handler;

const steps: [string, Hono<AppEnv>, Req, number][] = [
  ['Hono, one route, c.json', layered('get', '/x', [], ok), { method: 'GET', path: '/x', headers: {} }, 200],
  ['+ request id', layered('get', '/x', [], ok, [ctxOff]), { method: 'GET', path: '/x', headers: {} }, 200],
  ['+ request log line', layered('get', '/x', [], ok, [ctxOn]), { method: 'GET', path: '/x', headers: {} }, 200],
  ['+ API key (remembered)', layered('get', '/x', [verify], ok, [ctxOn]), { method: 'GET', path: '/x', headers: auth }, 200],
  ['+ rate limit', layered('get', '/x', [verify, limit], ok, [ctxOn]), { method: 'GET', path: '/x', headers: auth }, 200],
  ['+ GET handler (read, present)', layered('get', '/animations/:id', [verify, limit], getHandler, [ctxOn]), getReq, 200],
  ['full app: GET /animations/{id}', buildApp(services), getReq, 200],
  ['POST: key, limit, 400 handler', layered('post', '/animations', [verify, limit], postHandler, [ctxOn]), badReq, 400],
  ['+ body limit', layered('post', '/animations', [body, verify, limit], postHandler, [ctxOn]), badReq, 400],
  ['full app: POST /animations 400', buildApp(services), badReq, 400],
  ['full app: GET /health', buildApp(services), { method: 'GET', path: '/health', headers: {} }, 200],
];

out(`machine: ${cpus()[0]?.model}, ${cpus().length} cores, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
out(`${N} requests x ${ROUNDS} rounds per line, in process (app.fetch), CPU µs per request (median)\n`);
let previous = 0;
for (const [label, app, r, expect] of process.env.PARTS_ONLY === 'alone' ? [] : steps) {
  const us = await cost(app, r, expect);
  const delta = label.startsWith('+') ? `  (${us - previous >= 0 ? '+' : ''}${(us - previous).toFixed(1)})` : '';
  out(`  ${label.padEnd(36)}${us.toFixed(1).padStart(8)}${delta}`);
  previous = us;
}

// Each part alone: N calls in a loop, CPU µs per call (median of ROUNDS).
async function alone(f: () => unknown): Promise<number> {
  const us: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) await f();
    const used = process.cpuUsage(before);
    if (round > 0) us.push((used.user + used.system) / N); // round 0 warms up
  }
  return median(us);
}
const rateLimiter = createMemoryRateLimiter(config.rateLimit!);
const record = await (await buildApp(services).request(getReq.path, { headers: auth })).json();
const line = { request_id: newRequestId(), method: 'GET', path: getReq.path, status: 200, duration_ms: 1.23, user_id: userId };
const parts: [string, () => unknown][] = [
  ['request id (newRequestId)', () => newRequestId()],
  ['request log line (log.info)', () => log.info('request', line)],
  ['API key check, remembered (verifyKey)', () => services.verifyKey(apiKey)],
  ['  of which PRAGMA data_version (keysVersion)', () => services.find(USERS)!.keysVersion()],
  ['rate limit (limiter.take)', () => rateLimiter.take(row.id)],
  ['media URL, same second (signedUrl)', () => services.media.signedUrl(userId, 'samples/logo.png')],
  ['media URL signed afresh (an HMAC)', () => signText(services.urlKey, `${userId}/samples/logo.png\n${Date.now()}`)],
  ['new ApiError, declared 4xx (no stack)', () => new ApiError('ValidationError', 'Invalid request body')],
  ['new ApiError, 5xx (with stack)', () => new ApiError('InternalServerError', 'boom')],
  ['JSON.stringify of the GET record', () => JSON.stringify(record)],
];
out(`\neach part alone, ${N} calls x ${ROUNDS} rounds, CPU µs per call (median)\n`);
for (const [label, f] of parts) out(`  ${label.padEnd(46)}${(await alone(f)).toFixed(2).padStart(8)}`);
out(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

await services.worker.stop(0);
await services.drainModules();
await services.stopModules();
await services.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
