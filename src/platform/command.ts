import type { Config, DataSettings } from '../config.ts';

/**
 * The shape of an operator command, as the module contract declares it (`commands`):
 * src/cli/ parses, helps and runs them (src/cli/command.ts re-exports them); UsageError and valueOf are shared by every module's commands.
 */

/**
 * One option of a command. Its `--help` line is made from this declaration
 * (src/cli/help.ts), so what an option means cannot drift from what is parsed.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** How the value is written, for a string option: `N`, `ID`, `URL`, `PERM,...`. */
  value?: string;
  /** What it means, and what values it accepts. */
  description: string;
  /** What applies when it is not given; `required` (or `required ...`) when it must be. Only text for the help: parseArgs never sees it. */
  default: string;
}

/** A positional argument, which some commands take instead of an option (`users credits add ID N`). */
export interface ArgumentSpec {
  name: string;
  description: string;
}

/** An operator command: its declaration (usage, what it does, options, examples) and a run function printing JSON lines to stdout. */
export interface Command {
  usage: string;
  /** What the command does and what it prints. */
  help: string;
  options?: Record<string, OptionSpec>;
  /** Positional arguments, in order; a command takes no more than these. */
  arguments?: ArgumentSpec[];
  /** Command lines that work as written (after `npm run -s mimic -- `), at least one. */
  examples: string[];
  run(ctx: CommandContext, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> | number;
}

export interface CommandContext {
  /** The whole configuration, loaded on first use: it creates the data directory and, when there is none, a development master key. */
  config: Config;
  /** The data directory's paths and the settings, read without creating anything: for commands that only read. */
  settings: DataSettings;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** A command line the command cannot take: its message is printed with the command's usage (exit 2). */
export class UsageError extends Error {}

/** A required string option. A credential flag may name an environment variable (`env:NAME`) so the value stays out of `ps` and shell history. */
export function valueOf(v: Record<string, string | boolean | undefined>, flag: string, env: Record<string, string | undefined>): string {
  const raw = v[flag];
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`--${flag} is required`);
  if (!raw.startsWith('env:')) return raw;
  const fromEnv = env[raw.slice(4)];
  if (fromEnv === undefined || fromEnv === '') throw new UsageError(`--${flag} names the environment variable ${raw.slice(4)}, which is not set`);
  return fromEnv;
}
