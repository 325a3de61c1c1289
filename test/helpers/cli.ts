import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** How `npm start` and `npm run mimic` run the entry point: one node process, TypeScript through tsx. */
export const NODE_ARGS = ['--import', 'tsx', 'src/main.ts'];

/** Runs `mimic <args>` the way `npm run -s mimic --` does, in its own process. */
export function mimic(args: string[], env: Record<string, string>) {
  const res = spawnSync(process.execPath, [...NODE_ARGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr, lines: res.stdout.split('\n').filter(Boolean) };
}
