/**
 * The operator commands on PostgreSQL: with MIMIC_DATABASE_URL set, `users`, `keys`, `vault`
 * and `migrate` work on that database (migrating it first) and never make a SQLite file; a key
 * the CLI revokes stops verifying in a running process that remembered it.
 */
import { afterAll, beforeAll, describe, expect, it, inject, vi } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mimicAsync as mimic } from '../helpers/cli.ts';
import { banner } from '../helpers/postgres-setup.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { openPgDatabase, type PgDatabase } from '../../src/db/pg/database.ts';
import { userStoreOn } from '../../src/users/store-pg.ts';
import { makeKeyVerifier } from '../../src/platform/caller.ts';
import { deriveKey } from '../../src/keys.ts';

const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED: test/db/operator-cli-pg.test.ts did not run (no PostgreSQL cluster in this run).']));

// Each command is a fresh node process (a second or more on a busy machine).
vi.setConfig({ testTimeout: 240_000 });

const MASTER_KEY = 'c'.repeat(64);
/** A password in the URL (the test cluster trusts loopback, so it is never checked): no output may repeat it. */
const PASSWORD = 'hunter2-never-printed';

describe.skipIf(!admin)('operator commands with MIMIC_DATABASE_URL', () => {
  let dataDir: string;
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  let server: PgDatabase;

  beforeAll(async () => {
    const db = await freshPostgres(admin!);
    drop = db.drop;
    const url = new URL(db.url);
    url.password = PASSWORD;
    dataDir = mkdtempSync(join(tmpdir(), 'mimic-cli-pg-'));
    env = { MIMIC_DATA_DIR: dataDir, MIMIC_MASTER_KEY: MASTER_KEY, MIMIC_DATABASE_URL: url.toString() };
    // Another process on the same database, as a running server would be.
    server = openPgDatabase({ url: db.url, max: 4, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ok = async (...args: string[]) => {
    const res = await mimic(args, env);
    expect(res.stderr, args.join(' ')).not.toContain(PASSWORD);
    expect(res.stdout, args.join(' ')).not.toContain(PASSWORD);
    expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    return res.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  it('migrates the database and says which, without its password', async () => {
    const [out] = await ok('migrate');
    expect(out).toEqual({ migrated: true, database: expect.stringMatching(/^postgres(ql)?:\/\/[^@]+\/mimic_[0-9a-f]+$/) });
    await server.ready();
  });

  it('creates users and keys, changes credits, and revokes a key that a running process then refuses', async () => {
    const [created] = await ok('users', 'create', '--name', 'alice', '--credits', '5', '--grant', 'stitch');
    const id = created!.id as string;
    const apiKey = created!.api_key as string;
    expect((await server.pool.query('SELECT name, credits, permissions FROM users WHERE id = $1', [id])).rows).toEqual([{ name: 'alice', credits: 5, permissions: '["stitch"]' }]);
    expect((await ok('users', 'list')).map((u) => u.id)).toEqual([id]);

    const refused = await mimic(['users', 'credits', 'add', id, '-6'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused: user \S+ has 5 credits/);
    expect((await ok('users', 'credits', 'add', id, '-5'))[0]).toMatchObject({ id, credits: 0 });
    expect((await ok('users', 'credits', 'set', id, '12'))[0]).toMatchObject({ id, credits: 12 });

    const [second] = await ok('keys', 'create', '--user', id);
    expect((await ok('keys', 'list', id)).map((k) => k.id).sort()).toEqual([second!.id, expect.any(String)].sort());

    // The running process verifies the first key, and then answers it from memory.
    const verify = makeKeyVerifier({ users: userStoreOn(server), apiKeyHashKey: deriveKey(Buffer.from(MASTER_KEY, 'hex'), 'api-key-hash') });
    expect((await verify(apiKey))?.id).toBe(id);
    expect((await verify(apiKey))?.id).toBe(id);
    expect((await ok('keys', 'revoke', apiKey))[0]).toEqual({ revoked: true });
    await expect.poll(() => verify(apiKey), { timeout: 20_000, interval: 10 }).toBeNull();
    expect((await verify(second!.api_key as string))?.id).toBe(id);

    const again = await mimic(['keys', 'revoke', apiKey], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no active key matched/);
  });

  it('invites a user to the studio', async () => {
    const [created] = await ok('users', 'create', '--name', 'bea');
    const [invite] = await ok('users', 'invite', '--user', created!.id as string, '--email', 'bea@example.org');
    expect(invite).toMatchObject({ user_id: created!.id, email: 'bea@example.org', link: expect.stringContaining('http') });
    expect((await server.pool.query('SELECT email FROM accounts WHERE user_id = $1', [created!.id])).rows).toEqual([{ email: 'bea@example.org' }]);
  });

  it('shows and rotates the vault keys; a wrong master key is refused', async () => {
    const [before] = await ok('vault', 'status');
    const keys = (before as { keys: { id: string; status: string }[] }).keys;
    expect(keys.map((k) => k.status)).toEqual(['primary']);
    const [report] = await ok('vault', 'rotate');
    expect(report).toMatchObject({ rewrapped: 0, unreadable: [] });
    expect(report!.primary).not.toBe(keys[0]!.id);
    const [after] = await ok('vault', 'status');
    expect((after as { keys: { id: string; status: string }[] }).keys.map((k) => [k.id, k.status])).toEqual([
      [keys[0]!.id, 'retired'],
      [report!.primary, 'primary'],
    ]);

    const wrong = await mimic(['users', 'list'], { ...env, MIMIC_MASTER_KEY: 'd'.repeat(64) });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/master key/i);
  });

  it('made no SQLite file', () => {
    expect(existsSync(join(dataDir, 'mimic.db'))).toBe(false);
  });
});
