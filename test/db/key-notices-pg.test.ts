/**
 * What a process remembers of API keys and sessions on PostgreSQL follows the change notices
 * (LISTEN/NOTIFY) of the other processes; while its listening connection is down it trusts
 * nothing it remembered, and once it is back it listens again.
 */
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import pg from 'pg';
import { banner } from '../helpers/postgres-setup.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { openPgDatabase, type PgDatabase } from '../../src/db/pg/database.ts';
import { userStoreOn } from '../../src/users/store-pg.ts';
import { accountStoreOn } from '../../src/accounts/store-pg.ts';
import { hashApiKey, makeKeyVerifier } from '../../src/platform/caller.ts';

const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED: test/db/key-notices-pg.test.ts did not run (no PostgreSQL cluster in this run).']));

const HASH_KEY = Buffer.alloc(32, 9);
const apiKey = (c: string) => `mimic_${c.repeat(43)}`;

describe.skipIf(!admin)('key and session memories across two pools on PostgreSQL', () => {
  let drop: () => Promise<void>;
  let url: string;
  let a: PgDatabase;
  let b: PgDatabase;

  const open = async () => {
    const h = openPgDatabase({ url, max: 4, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });
    await h.ready();
    return h;
  };
  /** A user and an active key written with plain SQL: nothing is announced. */
  const seedKey = async (userId: string, key: string) => {
    await a.pool.query(`INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $1, 0, '[]', 0) ON CONFLICT DO NOTHING`, [userId]);
    await a.pool.query(`INSERT INTO api_keys (id, user_id, hash, prefix, created_at) VALUES ($1, $2, $3, 'mimic_', 0)`, [`key_${key.slice(6, 10)}`, userId, hashApiKey(HASH_KEY, key)]);
  };

  beforeAll(async () => {
    const db = await freshPostgres(admin!);
    drop = db.drop;
    url = db.url;
    a = await open();
    b = await open();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it('a key revoked through one pool is refused by the other, which remembered it', async () => {
    await seedKey('usr_1', apiKey('a'));
    const verify = makeKeyVerifier({ users: userStoreOn(b), apiKeyHashKey: HASH_KEY });
    expect((await verify(apiKey('a')))?.id).toBe('usr_1');
    const v = await userStoreOn(b).keysVersion();
    expect(await userStoreOn(b).keysVersion()).toBe(v);
    expect((await verify(apiKey('a')))?.id).toBe('usr_1');
    expect(await userStoreOn(a).revokeKey({ hash: hashApiKey(HASH_KEY, apiKey('a')) }, 1)).toBe(true);
    await expect.poll(() => verify(apiKey('a')), { timeout: 20_000, interval: 5 }).toBeNull();
  });

  it('while the listening connection is down every version moves at each read, so a key revoked unannounced is refused at once; back up, notices count again', async () => {
    const users = userStoreOn(b);
    const accounts = accountStoreOn(b);
    await seedKey('usr_2', apiKey('b'));
    const verify = makeKeyVerifier({ users, apiKeyHashKey: HASH_KEY });
    expect((await verify(apiKey('b')))?.id).toBe('usr_2');
    expect((await verify(apiKey('b')))?.id).toBe('usr_2');

    // The server ends both pools' listening connections (a restart, a failover, an idle-connection reaper).
    const c = new pg.Client(admin!);
    await c.connect();
    try {
      const ended = await c.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mimic-listen' AND datname = $1`,
        [new URL(url).pathname.slice(1)],
      );
      expect(ended.rowCount).toBe(2);
    } finally {
      await c.end();
    }
    await expect.poll(() => b.changes.listening(), { timeout: 20_000, interval: 1 }).toBe(false);
    // No awaits on I/O in between: both reads happen while it is down.
    const [k1, k2, s1, s2] = [await users.keysVersion(), await users.keysVersion(), await accounts.version(), await accounts.version()];
    expect(k2).not.toBe(k1);
    expect(s2).not.toBe(s1);

    // Revoked with plain SQL: no notice at all. Down (or just back, with everything counted as changed), it is not trusted.
    await a.pool.query('UPDATE api_keys SET revoked_at = 1 WHERE hash = $1', [hashApiKey(HASH_KEY, apiKey('b'))]);
    expect(await verify(apiKey('b'))).toBeNull();

    // It listens again by itself, versions hold still, and another pool's revocation is heard again.
    await expect.poll(() => b.changes.listening(), { timeout: 20_000, interval: 10 }).toBe(true);
    await expect.poll(() => a.changes.listening(), { timeout: 20_000, interval: 10 }).toBe(true);
    const held = await users.keysVersion();
    expect(await users.keysVersion()).toBe(held);
    await seedKey('usr_2', apiKey('c'));
    expect((await verify(apiKey('c')))?.id).toBe('usr_2');
    expect((await verify(apiKey('c')))?.id).toBe('usr_2');
    expect(await userStoreOn(a).revokeKey({ hash: hashApiKey(HASH_KEY, apiKey('c')) }, 2)).toBe(true);
    await expect.poll(() => verify(apiKey('c')), { timeout: 20_000, interval: 5 }).toBeNull();
  });
});
