/**
 * The yardsticks of bench/http.ts, each in its own process, on the same adapter
 * (@hono/node-server) and versions as mimic:
 *
 *   node --import tsx bench/http-bare.ts               the bare app: `GET /` answers a small JSON body
 *   node --import tsx bench/http-bare.ts lean <dir>    the lean app: the floor of mimic's parts
 *   node --import tsx bench/http-bare.ts lean <dir> file   the same with mimic's storage: a SQLite file
 *                                                          in WAL mode in <dir>, and a remembered key
 *                                                          answered only while `PRAGMA data_version`
 *                                                          stays the same (a key revoked by another
 *                                                          process stops working at once, as in mimic)
 *
 * The lean app is a plain Hono app built from the same parts as mimic's request path, each
 * used the simplest way: a request id (x-request-id), one pino request line per request to
 * an asynchronous destination (a file in <dir>, 4 KiB batches), rate-limiter-flexible in
 * memory per API key, the API key verified by HMAC-SHA256 and remembered, a prepared SQLite
 * read (better-sqlite3) and a JSON body. Its routes: `GET /health`, `GET /items/:id` (key,
 * limit, read, JSON) and `POST /items` (key, limit, JSON body parsed and checked: the bench's
 * invalid body answers 400). It prints `{"port":N,"apiKey":"...","id":"..."}`.
 *
 * Prints one JSON line with the port once listening on 127.0.0.1; stops on SIGTERM.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

const [mode, dir, storage] = process.argv.slice(2);
const ready: Record<string, unknown> = {};

function bareApp(): Hono {
  const app = new Hono();
  app.get('/', (c) => c.json({ status: 'ok' }));
  return app;
}

type LeanEnv = { Variables: { requestId: string; userId: string } };

function leanApp(logDir: string, onFile: boolean): Hono<LeanEnv> {
  const log = pino({ timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: join(logDir, 'lean.log'), sync: false, minLength: 4096 }));
  const hashKey = randomBytes(32);
  const hash = (key: string) => createHmac('sha256', hashKey).update(key).digest('base64url');
  const db = new Database(onFile ? join(logDir, 'lean.db') : ':memory:');
  if (onFile) db.pragma('journal_mode = WAL');
  db.exec('create table keys (hash text primary key, user_id text not null); create table items (id text primary key, user_id text not null, status text not null, created_at text not null)');
  const apiKey = `mimic_${randomBytes(32).toString('base64url')}`;
  db.prepare('insert into keys values (?, ?)').run(hash(apiKey), 'usr_1');
  const id = 'itm_1';
  db.prepare('insert into items values (?, ?, ?, ?)').run(id, 'usr_1', 'done', new Date().toISOString());
  const selectKey = db.prepare<[string], { user_id: string }>('select user_id from keys where hash = ?');
  const selectItem = db.prepare<[string, string], { id: string; status: string; created_at: string }>('select id, status, created_at from items where id = ? and user_id = ?');
  const remembered = new Map<string, string>();
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seenVersion = -1;
  const limiter = new RateLimiterMemory({ points: 1e9, duration: 1 });

  const app = new Hono<LeanEnv>();
  app.use(async (c, next) => {
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    c.set('requestId', requestId);
    c.header('x-request-id', requestId);
    const started = performance.now();
    await next();
    log.info({ request_id: requestId, method: c.req.method, path: c.req.path, status: c.res.status, duration_ms: performance.now() - started, user_id: c.var.userId }, 'request');
  });
  const auth: MiddlewareHandler<LeanEnv> = async (c, next) => {
    const key = c.req.header('authorization')?.replace(/^Basic\s+/i, '') ?? '';
    if (onFile) {
      const version = dataVersion.get()!;
      if (version !== seenVersion) {
        remembered.clear();
        seenVersion = version;
      }
    }
    let userId = remembered.get(key);
    if (!userId) {
      userId = selectKey.get(hash(key))?.user_id;
      if (!userId) return c.json({ kind: 'AuthorizationError' }, 401);
      remembered.set(key, userId);
    }
    c.set('userId', userId);
    try {
      const res = await limiter.consume(userId);
      c.header('RateLimit-Remaining', String(res.remainingPoints));
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return c.json({ kind: 'TooManyRequestsError' }, 429);
      throw refusal;
    }
    await next();
  };
  app.get('/health', (c) => c.json({ status: 'ok', version: '0.1.0' }));
  app.get('/items/:id', auth, (c) => {
    const row = selectItem.get(c.req.param('id'), c.var.userId);
    return row ? c.json(row) : c.json({ kind: 'NotFoundError' }, 404);
  });
  app.post('/items', auth, async (c) => {
    let body: { source_url?: unknown; config?: { mute?: unknown } };
    try {
      body = await c.req.json();
    } catch {
      return c.json({ kind: 'BadRequestError', description: 'not JSON' }, 400);
    }
    const errors: string[] = [];
    if (typeof body.source_url !== 'string' || !/^https?:\/\//.test(body.source_url)) errors.push('source_url must be an http(s) URL');
    if (body.config?.mute !== undefined && typeof body.config.mute !== 'boolean') errors.push('config.mute must be a boolean');
    if (errors.length) return c.json({ kind: 'ValidationError', description: errors.join('; '), details: errors }, 400);
    return c.json({ id }, 201);
  });
  Object.assign(ready, { apiKey, id });
  return app;
}

const app = mode === 'lean' ? leanApp(dir ?? '.', storage === 'file') : bareApp();
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(JSON.stringify({ port: info.port, ...ready }) + '\n');
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
