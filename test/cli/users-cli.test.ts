import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, mimicAsync as mimic } from '../helpers/cli.ts';
import { COMMANDS } from '../../src/cli/commands.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-cli-users-'));
const env = { MIMIC_DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
// Each command is a fresh node process (a second or more on a busy machine), and some tests run several.
vi.setConfig({ testTimeout: 240_000 });

const credits = async (id: string): Promise<number> => (await mimic(['users', 'list'], env)).lines.map((l) => JSON.parse(l)).find((u) => u.id === id).credits;
const created = async (...args: string[]): Promise<string> => JSON.parse((await mimic(['users', 'create', ...args], env)).lines[0]!).id;

describe('users credits', () => {
  it('refuses an amount that would make the balance negative, and changes nothing', async () => {
    const id = await created('--credits', '5');
    const refused = await mimic(['users', 'credits', 'add', id, '-6'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/refused: user \S+ has 5 credits; adding -6 would make the balance negative/);
    expect(refused.stderr).toMatch(/users credits set/);
    expect(await credits(id)).toBe(5);

    // Down to zero exactly is allowed.
    const taken = await mimic(['users', 'credits', 'add', '--user', id, '--amount=-5'], env);
    expect(taken.code).toBe(0);
    expect(JSON.parse(taken.lines[0]!)).toMatchObject({ id, credits: 0 });
    expect((await mimic(['users', 'credits', 'add', id, '-1'], env)).code).toBe(1);
    expect(await credits(id)).toBe(0);
  });

  it('sets a balance for corrections, never a negative one', async () => {
    const id = await created('--credits', '5');
    const set = await mimic(['users', 'credits', 'set', id, '42'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.lines[0]!)).toMatchObject({ id, credits: 42 });
    expect(JSON.parse((await mimic(['users', 'credits', 'set', '--user', id, '--credits', '0'], env)).lines[0]!).credits).toBe(0);

    const negative = await mimic(['users', 'credits', 'set', id, '-1'], env);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/must not be negative/);
    expect((await mimic(['users', 'credits', 'set', id, 'lots'], env)).code).toBe(2);
    expect(await credits(id)).toBe(0);

    const nobody = await mimic(['users', 'credits', 'set', 'usr_nope', '3'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/no user usr_nope/);
  });
});

describe('command groups', () => {
  const groups = [...new Set(Object.keys(COMMANDS).flatMap((name) => {
    const words = name.split(' ');
    return words.slice(1).map((_, i) => words.slice(0, i + 1).join(' '));
  }))];

  it('are the ones docs/cli.md documents', async () => {
    expect(groups.sort()).toEqual(['avatars', 'consents', 'db', 'keys', 'secrets', 'users', 'users credits', 'vault', 'voices', 'workers']);
    const said = /Every command group prints its commands with `--help` \(([^)]*)\)/.exec(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8').replace(/\s+/g, ' '));
    expect(said, 'docs/cli.md names the groups').not.toBeNull();
    for (const group of groups) expect(said![1]).toMatch(new RegExp(`\`${group}( --help)?\``));
  });

  it.each(groups)('%s --help prints the usage of every command in the group and exits 0', async (group) => {
    const res = await mimic([...group.split(' '), '--help'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^usage: npm run -s mimic -- ${group} <command>`));
    const members = Object.entries(COMMANDS).filter(([name]) => name.startsWith(`${group} `));
    expect(members.length).toBeGreaterThan(0);
    for (const [, command] of members) expect(res.stdout).toContain(command.usage);
  });

  it('a group without a command prints its usage as an error (exit 2)', async () => {
    const res = await mimic(['users'], env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('users credits set');
    expect((await mimic(['users', 'frobnicate'], env)).code).toBe(2);
  });
});

describe('negative numbers on the command line', () => {
  it('are values, not options, in both the positional and the --amount form', async () => {
    const id = await created('--credits', '9');
    expect(JSON.parse((await mimic(['users', 'credits', 'add', id, '-2'], env)).lines[0]!).credits).toBe(7);
    expect(JSON.parse((await mimic(['users', 'credits', 'add', '--user', id, '--amount', '-3'], env)).lines[0]!).credits).toBe(4);
    expect(JSON.parse((await mimic(['users', 'credits', 'add', '--amount=-1', id], env)).lines[0]!).credits).toBe(3);
    expect((await mimic(['users', 'credits', 'add', id, '-2', 'extra'], env)).code).toBe(2);
    expect((await mimic(['users', 'create', '--name', '--bogus'], env)).code).toBe(2);
  });
});
