import { afterAll, describe, expect, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ARGS, ROOT, mimicAsync as mimic } from '../helpers/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-cli-accounts-'));
const env = { MIMIC_DATA_DIR: dataDir, MIMIC_PUBLIC_URL: 'https://studio.example' };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
vi.setConfig({ testTimeout: 240_000 });

/** `mimic <args>` with `input` on stdin. */
function withStdin(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

describe('users invite, reset-password, password', () => {
  it('invites a user (a one-time link under the public URL), sets a password from stdin, prints a reset link', async () => {
    const id = JSON.parse((await mimic(['users', 'create', '--name', 'ann'], env)).lines[0]!).id as string;
    const invited = await mimic(['users', 'invite', '--user', id, '--email', 'Ann@Example.org'], env);
    expect(invited.code).toBe(0);
    const line = JSON.parse(invited.lines[0]!);
    expect(line).toMatchObject({ user_id: id, email: 'ann@example.org' });
    expect(line.link).toMatch(/^https:\/\/studio\.example\/studio\/invite\?token=[A-Za-z0-9_-]{43}$/);

    const short = await withStdin(['users', 'password', '--user', id, '--email', 'ann@example.org'], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/8 to 256 characters/);
    const set = await withStdin(['users', 'password', '--user', id, '--email', 'ann@example.org'], 'correct horse battery\n');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ user_id: id, email: 'ann@example.org' });
    // The password is never printed.
    expect(set.stdout + set.stderr).not.toContain('correct horse');

    const reinvite = await mimic(['users', 'invite', '--user', id, '--email', 'ann@example.org'], env);
    expect(reinvite.code).toBe(1);
    expect(reinvite.stderr).toMatch(/reset-password/);
    const reset = await mimic(['users', 'reset-password', '--email', 'ann@example.org'], env);
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.lines[0]!).link).toMatch(/^https:\/\/studio\.example\/studio\/invite\?token=/);
    expect((await mimic(['users', 'reset-password', '--email', 'nobody@example.org'], env)).code).toBe(1);
  });
});
