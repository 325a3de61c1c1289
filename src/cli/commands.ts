import { parseArgs } from 'node:util';
import { closeDatabase, openReadyDatabase, type DatabaseSettings } from '../db/database.ts';
import { UsageError, type Command } from './command.ts';
import { MODULES } from '../modules.ts';
import { DB_COMMANDS } from './db.ts';

export { UsageError, type Command, type CommandContext } from './command.ts';
export { commandHelp } from './help.ts';

/** Every module's operator commands, and the platform's own. */
export const COMMANDS: Record<string, Command> = {
  ...Object.assign({}, ...MODULES.map((m) => m.commands ?? {})),
  ...DB_COMMANDS,
  migrate: {
    usage: 'migrate',
    help:
      'Applies pending database migrations (the server also does this on start) to MIMIC_DATA_DIR/mimic.db, or to the PostgreSQL\n' +
      'database of MIMIC_DATABASE_URL (under an advisory lock: processes starting at once migrate once); prints {"migrated","database"}.',
    examples: ['migrate'],
    async run(ctx) {
      await closeDatabase(await openReadyDatabase(ctx.config));
      ctx.out(JSON.stringify({ migrated: true, database: databaseName(ctx.config) }));
      return 0;
    },
  },
};

/** Which database a command worked on, for its output: the SQLite file, or the PostgreSQL URL without its user and password. */
function databaseName(config: DatabaseSettings): string {
  if (!config.database) return config.databaseFile;
  const url = new URL(config.database.url);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Finds the longest command name that prefixes argv; returns it with the remaining args. */
export function findCommand(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  for (let n = Math.min(3, argv.length); n > 0; n--) {
    const name = argv.slice(0, n).join(' ');
    const command = COMMANDS[name];
    if (command) return { name, command, rest: argv.slice(n) };
  }
  return null;
}

/**
 * A command group (`users`, `users credits`, `keys`, `vault`, `secrets`, `workers`): the
 * longest run of leading words that starts at least one command name without being one.
 */
export function findGroup(argv: string[]): { name: string; commands: Command[] } | null {
  const firstOption = argv.findIndex((a) => a.startsWith('-'));
  const words = firstOption < 0 ? argv : argv.slice(0, firstOption);
  for (let n = Math.min(2, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const commands = Object.entries(COMMANDS)
      .filter(([command]) => command.startsWith(`${name} `))
      .map(([, command]) => command);
    if (commands.length) return { name, commands };
  }
  return null;
}

export function groupHelp(group: { name: string; commands: Command[] }): string {
  return [
    `usage: npm run -s mimic -- ${group.name} <command> [options]`,
    '',
    'commands:',
    ...group.commands.map((c) => `  ${c.usage}`),
    '',
    'Every command takes --help.',
  ].join('\n');
}

const NEGATIVE_NUMBER = /^-\d+$/;

/**
 * parseArgs reads `-6` as an unknown option. Amounts may be negative (`users credits add ID -6`,
 * `--amount -6`), so a negative number becomes the value of the long option before it
 * (`--amount=-6`) or a positional (every positional goes after `--`, in its order).
 */
function numbersAsValues(args: string[], options: NonNullable<Command['options']>): string[] {
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || NEGATIVE_NUMBER.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const next = args[i + 1];
    const takesValue = arg.startsWith('--') && !arg.includes('=') && options[arg.slice(2)]?.type === 'string';
    flags.push(takesValue && next !== undefined && (!next.startsWith('-') || NEGATIVE_NUMBER.test(next)) ? `${arg}=${args[++i]}` : arg);
  }
  return positionals.length ? [...flags, '--', ...positionals] : flags;
}

export function parseCommandArgs(command: Command, rest: string[]) {
  // Only how each option is parsed: a declaration's `default` is help text, not parseArgs' default value.
  const parsed = Object.fromEntries(Object.entries(command.options ?? {}).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}) }]));
  const { values, positionals } = parseArgs({
    args: numbersAsValues(rest, command.options ?? {}),
    options: { ...parsed, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > (command.arguments?.length ?? 0)) throw new UsageError(`unexpected argument ${positionals.at(-1)}`);
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}
