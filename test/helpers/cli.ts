import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** Runs `mimic <args>` the way `npm run -s mimic --` does, in its own process. */
export function mimic(args: string[], env: Record<string, string>) {
  const res = spawnSync(TSX, ['src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, lines: res.stdout.split('\n').filter(Boolean) };
}
