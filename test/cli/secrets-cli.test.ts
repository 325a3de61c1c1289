import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mimicAsync as mimic, NODE_ARGS, ROOT } from '../helpers/cli.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';

/** The operator commands of the vault and secrets, each in its own process on one data directory. */
let dataDir: string;
let env: Record<string, string>;
let userId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mimic-cli-secrets-'));
  env = { MIMIC_DATA_DIR: dataDir, MIMIC_MASTER_KEY: 'a'.repeat(64) };
  userId = JSON.parse((await mimic(['users', 'create'], env)).lines[0]!).id;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const importArgs = (extra: string[] = []) => [
  'secrets', 'import-oauth2', '--user', userId, '--provider', 'calendar', '--token-url', 'https://oauth.example.com/token',
  '--client-id', 'client-1', '--client-secret', CANARY.clientSecret, '--access-token', CANARY.accessToken,
  '--refresh-token', CANARY.refreshToken, '--expires-in', '3600', ...extra,
];

describe('secrets import-oauth2', () => {
  it('prints the sanitized Secret as one JSON line, never a token', async () => {
    const res = await mimic(importArgs(), env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.lines).toHaveLength(1);
    const secret = JSON.parse(res.lines[0]!);
    expect(secret).toMatchObject({ provider: 'calendar', type: 'oauth2', sanitized_secret: '•••••••••', status: 'active' });
    expect(Date.parse(secret.expires_at)).toBeGreaterThan(Date.now() + 3500_000);
    expect(leakedIn(res.stdout + res.stderr)).toEqual([]);

    // --secret replaces the grant of that secret (re-authorization).
    const again = await mimic(importArgs(['--secret', secret.id]), env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.lines[0]!).id).toBe(secret.id);
  });

  it('reads a credential from the environment with env:NAME', async () => {
    const args = importArgs().map((a) => (a === CANARY.clientSecret ? 'env:CLIENT_SECRET' : a));
    const res = await mimic(args, { ...env, CLIENT_SECRET: CANARY.clientSecret });
    expect(res.code, res.stderr).toBe(0);
    expect((await mimic(args, env)).code).toBe(2);
  });

  it('refuses bad input with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [importArgs().map((a) => (a === 'https://oauth.example.com/token' ? 'http://oauth.example.com/token' : a)), /https/],
      [importArgs().map((a) => (a === '3600' ? '-5' : a)), /expires-in/],
      [importArgs().map((a) => (a === userId ? 'usr_nobody' : a)), /does not exist/],
      [importArgs(['--secret', 'sec_nope']), /does not exist/],
      [importArgs().filter((a, i, all) => a !== '--refresh-token' && all[i - 1] !== '--refresh-token'), /--refresh-token is required/],
    ];
    for (const [args, message] of cases) {
      const res = await mimic(args, env);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(message);
      expect(leakedIn(res.stdout + res.stderr)).toEqual([]);
    }
  }, 240_000); // four CLI processes: 60 s was reached at load 32

  it('has --help', async () => {
    const res = await mimic(['secrets', 'import-oauth2', '--help'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/--token-url/);
  });
});

describe('a master key that cannot decrypt what is stored', () => {
  const wrong = { MIMIC_MASTER_KEY: 'b'.repeat(64) };

  it('operator commands refuse with the reason and exit 1', async () => {
    for (const args of [['users', 'create'], ['vault', 'status'], ['secrets', 'import-oauth2', ...importArgs().slice(2)]]) {
      const res = await mimic(args, { ...env, ...wrong });
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toMatch(/master key/i);
    }
  });

  it('the service refuses to start, with a clear message', async () => {
    const child = spawn(process.execPath, [...NODE_ARGS, 'serve'], { cwd: ROOT, env: { ...process.env, ...env, ...wrong, PORT: '0' } });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/master key/i);
    expect(stdout).not.toMatch(/"listening"/);
  });
});
