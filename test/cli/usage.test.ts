import { afterAll, describe, expect, it, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands.ts';
import { ROOT, mimicAsync as mimic } from '../helpers/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-usage-'));
const env = { MIMIC_DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
vi.setConfig({ testTimeout: 240_000 });

const USAGE = 'usage: npm run -s mimic -- ';
const errLines = (res: { stderr: string }) => res.stderr.split('\n').filter((l) => l && !l.startsWith('!!!'));

describe('CLI usage', () => {
  it('says which command it does not know, at the top level and inside a group', async () => {
    const top = await mimic(['frobnicate'], env);
    expect(top.code).toBe(2);
    expect(errLines(top)[0]).toBe('unknown command: frobnicate');

    const inGroup = await mimic(['users', 'frobnicate'], env);
    expect(inGroup.code).toBe(2);
    expect(errLines(inGroup).slice(0, 2)).toEqual(['unknown command: users frobnicate', `${USAGE}users <command> [options]`]);
  });

  it('names an unknown option in one line, followed by the usage of the command it was given to', async () => {
    const res = await mimic(['users', 'create', '--bogus'], env);
    expect(res.code).toBe(2);
    expect(errLines(res)).toEqual(['unknown option --bogus', `${USAGE}${COMMANDS['users create']!.usage}`]);

    const missing = await mimic(['keys', 'list', '--user'], env);
    expect(errLines(missing)).toEqual(['--user needs a value', `${USAGE}${COMMANDS['keys list']!.usage}`]);

    const group = await mimic(['users', '--bogus'], env);
    expect(errLines(group).slice(0, 2)).toEqual(['unknown option --bogus', `${USAGE}users <command> [options]`]);

    const serve = await mimic(['serve', '--port', '9000'], env);
    expect(serve.code).toBe(2);
    expect(errLines(serve)[0]).toBe('unknown option --port');
  });

  it('users create --help explains every option it takes', async () => {
    const res = await mimic(['users', 'create', '--help'], env);
    expect(res.code).toBe(0);
    const options = Object.keys(COMMANDS['users create']!.options!);
    expect(options.length).toBeGreaterThan(2);
    const explained = res.stdout.split('\n').filter((l) => /^\s+--\w/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    expect(explained.sort()).toEqual(options.map((o) => `--${o}`).sort());
  });

  it('voices check prints what docs/cli.md says: one JSON line per configured provider, its secret usable or why not', async () => {
    const none = await mimic(['voices', 'check'], env);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    const one = await mimic(['voices', 'check'], { ...env, MIMIC_VOICE_PROVIDERS: JSON.stringify([{ type: 'openai', secret_id: 'sec_missing' }]) });
    expect(one.code).toBe(1);
    expect(one.lines).toHaveLength(1);
    expect(JSON.parse(one.lines[0]!)).toMatchObject({ provider: 'openai', secret_id: 'sec_missing', ok: false, problem: expect.stringMatching(/sec_missing does not exist/) });
  });
});

describe('voices check writes nothing', () => {
  const providers = { MIMIC_VOICE_PROVIDERS: JSON.stringify([{ type: 'openai', secret_id: 'sec_missing' }]) };

  it('on a fresh data directory: no directory, master key or database is made for it', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'mimic-voices-check-')), 'data');
    try {
      const none = await mimic(['voices', 'check'], { MIMIC_DATA_DIR: fresh });
      expect(none.code).toBe(0);
      expect(none.stderr).toMatch(/configures no external provider/);
      const one = await mimic(['voices', 'check'], { MIMIC_DATA_DIR: fresh, ...providers });
      expect(one.code).toBe(1);
      expect(JSON.parse(one.lines[0]!)).toMatchObject({ provider: 'openai', ok: false, problem: expect.stringMatching(/sec_missing does not exist/) });
      expect(none.stderr + one.stderr).not.toMatch(/master key/i);
      expect(existsSync(fresh)).toBe(false);
    } finally {
      rmSync(dirname(fresh), { recursive: true, force: true });
    }
  });

  it('on a data directory in use: its files stay as they were', async () => {
    await mimic(['users', 'create'], env); // makes the database, if no test has yet
    const before = snapshot(dataDir);
    const res = await mimic(['voices', 'check'], { ...env, ...providers });
    expect(res.code).toBe(1);
    expect(snapshot(dataDir)).toEqual(before);
  });
});

/** Each file of a directory with its size and modification time. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((f) => {
    const st = statSync(join(dir, f));
    return [f, `${st.size} ${st.mtimeMs}`];
  }));
}

function script(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('video-making scripts', () => {
  it.each(['scripts/make-consent-video.ts', 'scripts/make-avatar-footage.ts'])('%s: --help prints the usage, a bad option the problem and the usage, never a stack', async (file) => {
    const help = await script(file, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^usage: npx tsx ${file} `));
    const bad = await script(file, ['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual(["Unknown option '--bogus'", help.stdout.trim()]);
  });
});
