import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mimicAsync as mimic } from '../helpers/cli.ts';
import { harness } from '../helpers/harness.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-cli-'));
const env = { MIMIC_DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
// Each command is a fresh node process (seconds on a busy machine), and some tests run ten.
vi.setConfig({ testTimeout: 240_000 });

describe('operator CLI', () => {
  it('creates a user and prints one JSON line with id and api_key, warning loudly about the dev key', async () => {
    const res = await mimic(['users', 'create', '--name', 'Ada', '--credits', '5', '--grant', 'stitch'], env);
    expect(res.code).toBe(0);
    expect(res.lines).toHaveLength(1);
    const out = JSON.parse(res.lines[0]!);
    expect(Object.keys(out).sort()).toEqual(['api_key', 'id']);
    expect(out.api_key).toMatch(/^mimic_[A-Za-z0-9_-]{43}$/);
    expect(res.stderr).toMatch(/WARNING: generated a DEVELOPMENT master key/);
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });

  it('lists users, adds credits, lists and revokes keys', async () => {
    const { id, api_key } = JSON.parse((await mimic(['users', 'create'], env)).lines[0]!);
    const listed = (await mimic(['users', 'list'], env)).lines.map((l) => JSON.parse(l));
    expect(listed.find((u) => u.id === id)).toMatchObject({ credits: 100, permissions: [] });

    const added = await mimic(['users', 'credits', 'add', '--user', id, '--amount', '7'], env);
    expect(JSON.parse(added.lines[0]!).credits).toBe(107);
    expect(JSON.parse((await mimic(['users', 'credits', 'add', id, '3'], env)).lines[0]!).credits).toBe(110);

    const keys = (await mimic(['keys', 'list', '--user', id], env)).lines.map((l) => JSON.parse(l));
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(api_key);

    // The key works against a server on the same data directory, until revoked.
    const h = harness({ MIMIC_DATA_DIR: dataDir });
    try {
      expect((await h.call('GET', '/animations', { key: api_key })).status).toBe(200);
      expect((await mimic(['keys', 'revoke', keys[0].id], env)).code).toBe(0);
      expect((await h.call('GET', '/animations', { key: api_key })).status).toBe(401);
    } finally {
      await h.services.close();
    }
    expect((await mimic(['keys', 'revoke', keys[0].id], env)).code).toBe(1);
  });

  it('has --help on every command', async () => {
    for (const cmd of [[], ['users', 'create'], ['users', 'list'], ['users', 'credits', 'add'], ['users', 'credits', 'set'], ['keys', 'revoke'], ['keys', 'list'], ['keys', 'create'], ['serve'], ['migrate']]) {
      const res = await mimic([...cmd, '--help'], env);
      expect(res.code, cmd.join(' ')).toBe(0);
      expect(res.stdout).toMatch(/usage:/);
    }
  });

  it('refuses bad arguments with a usage line and exit code 2', async () => {
    expect((await mimic(['users', 'create', '--grant', 'root'], env)).code).toBe(2);
    expect((await mimic(['users', 'create', '--credits', 'lots'], env)).code).toBe(2);
    expect((await mimic(['users', 'create', '--bogus'], env)).code).toBe(2);
    expect((await mimic(['frobnicate'], env)).code).toBe(2);
    expect((await mimic(['users', 'credits', 'add', '--user', 'usr_nope', '--amount', '1'], env)).code).toBe(1);
  });
});
