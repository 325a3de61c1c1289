/**
 * Rate limits across processes: on PostgreSQL every API process counts in one table, so a key
 * spends one allowance wherever its requests land; when the database fails or hangs, each
 * process's in-memory insurance limiter answers. Two PgDatabases on one database stand for two
 * processes.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { openPgDatabase, type PgDatabase } from '../../src/db/pg/database.ts';
import { openStore } from '../../src/db/client.ts';
import { createPgRateLimiter, rateLimitersOn, RATE_LIMITS_TABLE } from '../../src/http/rate-limit/store-pg.ts';
import type { RateLimiter } from '../../src/http/rate-limit/interface.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { banner } from '../helpers/postgres-setup.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED in test/scale/rate-limits.test.ts: the run has no PostgreSQL cluster.']));

const settings = (url: string) => ({ url, max: 4, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });
// A window far longer than any test: nothing expires while one runs.
const BURST = 10;
const LIMIT = { perSecond: BURST / 3600, burst: BURST };
// The database of these tests answers; a slow machine must not send a request to the insurance limiter.
const PATIENT = 60_000;

const allowed = async (limiter: RateLimiter, key: string, n: number) => (await Promise.all(Array.from({ length: n }, () => limiter.take(key)))).filter((d) => d.allowed).length;

describe.skipIf(!admin)('rate limits on PostgreSQL', () => {
  let drop: () => Promise<void>;
  let a: PgDatabase;
  let b: PgDatabase;
  beforeAll(async () => {
    const db = await freshPostgres(admin!);
    drop = db.drop;
    a = openPgDatabase(settings(db.url));
    b = openPgDatabase(settings(db.url));
    await Promise.all([a.ready(), b.ready()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it('two processes spend one allowance per key, even sending at once, and keys and allowances stay apart', async () => {
    const inA = createPgRateLimiter(a.pool, LIMIT, { name: 'api-key', timeoutMs: PATIENT });
    const inB = createPgRateLimiter(b.pool, LIMIT, { name: 'api-key', timeoutMs: PATIENT });
    const [fromA, fromB] = await Promise.all([allowed(inA, 'key_1', 15), allowed(inB, 'key_1', 15)]);
    expect(fromA + fromB).toBe(BURST);
    const refused = await inB.take('key_1');
    expect(refused).toMatchObject({ allowed: false, limit: BURST, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(3_500_000);

    // Another key has its own allowance; so has the same key under the client-key allowance.
    const first = await inA.take('key_2');
    expect(first).toMatchObject({ allowed: true, remaining: BURST - 1 });
    expect(await inB.take('key_2')).toMatchObject({ allowed: true, remaining: BURST - 2 });
    const whole = createPgRateLimiter(b.pool, LIMIT, { name: 'client-key', timeoutMs: PATIENT });
    expect(await whole.take('key_1')).toMatchObject({ allowed: true, remaining: BURST - 1 });

    const { rows } = await a.pool.query(`SELECT key, points FROM ${RATE_LIMITS_TABLE} ORDER BY key`);
    expect(rows).toEqual([
      { key: 'api-key:key_1', points: expect.any(Number) },
      { key: 'api-key:key_2', points: 2 },
      { key: 'client-key:key_1', points: 1 },
    ]);
  });

  it('counts an end user of a client key under a long external id', async () => {
    const limiter = createPgRateLimiter(a.pool, LIMIT, { name: 'api-key', timeoutMs: PATIENT });
    const key = `ck:ck_${'x'.repeat(24)}:${'é'.repeat(200)}`;
    expect(await limiter.take(key)).toMatchObject({ allowed: true, remaining: BURST - 1 });
    expect((await a.pool.query(`SELECT points FROM ${RATE_LIMITS_TABLE} WHERE key = $1`, [`api-key:${key}`])).rows).toEqual([{ points: 1 }]);
  });

  it('on SQLite the limiters stay in memory; on PostgreSQL they are the shared ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-rate-'));
    const sqlite = openStore(join(dir, 'mimic.db'));
    try {
      const mem = rateLimitersOn(sqlite)(LIMIT, 'api-key');
      expect(await allowed(mem, 'key_3', 12)).toBe(BURST);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const [inA, inB] = [rateLimitersOn(a)(LIMIT, 'api-key'), rateLimitersOn(b)(LIMIT, 'api-key')];
    expect((await allowed(inA, 'key_3', 6)) + (await allowed(inB, 'key_3', 6))).toBe(BURST);
  });
});

/** A TCP port where nothing listens (connections refused). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe('rate limits when PostgreSQL cannot be reached', () => {
  let silent: Server | undefined;
  afterAll(async () => {
    if (silent) await new Promise((r) => silent!.close(r));
  });

  async function answersFromMemory(url: string, timeoutMs: number, hangUp = () => {}) {
    const db = openPgDatabase({ ...settings(url), connectionTimeoutMs: 60_000 });
    try {
      const limiter = createPgRateLimiter(db.pool, LIMIT, { name: 'api-key', timeoutMs });
      const decisions = [];
      for (let i = 0; i < BURST + 2; i++) decisions.push(await limiter.take('key_1'));
      // This process's own allowance: the burst, then refusals, never an error.
      expect(decisions.map((d) => d.allowed)).toEqual([...Array<boolean>(BURST).fill(true), false, false]);
      expect(decisions.map((d) => d.remaining).slice(0, 3)).toEqual([BURST - 1, BURST - 2, BURST - 3]);
      expect(await limiter.take('key_2')).toMatchObject({ allowed: true, remaining: BURST - 1 });
    } finally {
      hangUp();
      await db.close().catch(() => {});
    }
  }

  it('refused connections: the in-memory insurance limiter answers', async () => {
    await answersFromMemory(`postgres://mimic@127.0.0.1:${await closedPort()}/mimic`, PATIENT);
  });

  it('a server that never answers: the insurance limiter answers once the store times out', async () => {
    const held: Socket[] = [];
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    await answersFromMemory(`postgres://mimic@127.0.0.1:${port}/mimic`, 200, () => held.forEach((s) => s.destroy()));
  });
});
