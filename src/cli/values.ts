import { UsageError } from './command.ts';

/** A required string option. A credential flag may name an environment variable (`env:NAME`) so the value stays out of `ps` and shell history. */
export function valueOf(v: Record<string, string | boolean | undefined>, flag: string, env: Record<string, string | undefined>): string {
  const raw = v[flag];
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`--${flag} is required`);
  if (!raw.startsWith('env:')) return raw;
  const fromEnv = env[raw.slice(4)];
  if (fromEnv === undefined || fromEnv === '') throw new UsageError(`--${flag} names the environment variable ${raw.slice(4)}, which is not set`);
  return fromEnv;
}
