import { execFile, spawnSync } from 'node:child_process';
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

/**
 * `mimic` without blocking the test worker: spawnSync stalls vitest's own messages, which
 * time out on a loaded machine when a test runs many commands.
 */
export function mimicAsync(args: string[], env: Record<string, string>): Promise<ReturnType<typeof mimic>> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr, lines: stdout.split('\n').filter(Boolean) });
    });
  });
}
