import type { Config } from '../config.ts';

/** An operator command: a help text and a run function printing JSON lines to stdout. */
export interface Command {
  usage: string;
  help: string;
  options?: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  positionals?: number;
  run(ctx: CommandContext, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> | number;
}

export interface CommandContext {
  config: Config;
  out: (line: string) => void;
  err: (line: string) => void;
}

export class UsageError extends Error {}
