import { describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { COMMANDS, commandHelp } from '../../src/cli/commands.ts';
import { ROOT, mimicAsync as mimic } from '../helpers/cli.ts';

/**
 * Every command's --help explains every option it takes (what it means, how it is written,
 * its default) and shows an example. The help is made from the same declaration the
 * arguments are parsed with (src/cli/help.ts), so an option cannot be parsed and not explained.
 */
vi.setConfig({ testTimeout: 240_000 });

const commands = Object.entries(COMMANDS);
const flagsIn = (text: string) => [...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!))];

describe('every command declares', () => {
  it.each(commands)('%s: each option with what it means, its form and its default', (_name, command) => {
    for (const [option, spec] of Object.entries(command.options ?? {})) {
      expect(spec.description.trim().length, `--${option}`).toBeGreaterThan(10);
      expect(spec.default.trim(), `--${option}`).not.toBe('');
      if (spec.type === 'string') expect(spec.value, `--${option} says how its value is written`).toMatch(/\S/);
    }
    for (const argument of command.arguments ?? []) expect(argument.description.trim().length, argument.name).toBeGreaterThan(10);
    expect(command.help.trim().length).toBeGreaterThan(20);
  });

  it.each(commands)('%s: a usage line naming exactly the options it takes', (_name, command) => {
    expect(flagsIn(command.usage).sort()).toEqual(Object.keys(command.options ?? {}).sort());
  });

  it.each(commands)('%s: examples of itself that use only its options', (name, command) => {
    expect(command.examples.length).toBeGreaterThan(0);
    for (const example of command.examples) {
      expect(example.startsWith(`${name} `) || example === name, example).toBe(true);
      for (const flag of flagsIn(example)) expect(Object.keys(command.options ?? {}), example).toContain(flag);
    }
  });
});

describe('--help', () => {
  it.each(commands)('%s: has a line for each argument and each option, with its default', (_name, command) => {
    const help = commandHelp(command);
    const lines = help.split('\n');
    for (const [option, spec] of Object.entries(command.options ?? {})) {
      const at = lines.findIndex((l) => new RegExp(`^  (-\\w, )?--${option}\\b`).test(l));
      expect(at, `--${option}`).toBeGreaterThan(0);
      // The entry runs on until the next entry or the end of its list.
      const entry = lines.slice(at, lines.findIndex((l, i) => i > at && !/^ {4,}\S/.test(l))).join(' ');
      expect(entry).toContain(spec.default.startsWith('required') ? `(${spec.default})` : `(default: ${spec.default})`);
      if (spec.type === 'string') expect(entry).toContain(`--${option} ${spec.value}`);
    }
    for (const argument of command.arguments ?? []) expect(lines.some((l) => l.startsWith(`  ${argument.name} `))).toBe(true);
    for (const example of command.examples) expect(help).toContain(`npm run -s mimic -- ${example}`);
  });

  it.each(['users create', 'users credits add', 'secrets import-oauth2', 'consents reject', 'worker', 'voices check'])('%s --help prints what its declaration says, and exits 0', async (name) => {
    const res = await mimic([...name.split(' '), '--help'], { MIMIC_DATA_DIR: join(tmpdir(), 'mimic-help-never-made') });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${commandHelp(COMMANDS[name]!)}\n`);
  });
});

describe('docs/cli.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

  it('shows the help of users create as it prints', () => {
    expect(doc).toContain(`$ npm run -s mimic -- users create --help\n${commandHelp(COMMANDS['users create']!)}\n\`\`\``);
  });

  it.each(commands)('lists %s with each of its options', (name, command) => {
    expect(doc).toMatch(new RegExp(`^${name}\\b`, 'm'));
    for (const option of Object.keys(command.options ?? {})) expect(doc, `--${option}`).toMatch(new RegExp(`^${name} .*--${option}\\b`, 'm'));
  });
});
