/**
 * What the HTTP benchmarks share: child processes (a server per process, so that each side
 * pays only for itself on a small machine), readiness, CPU accounting from /proc, and a
 * closed-loop load generator on undici.
 */
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'undici';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const NODE_ARGS = ['--import', 'tsx'];
export const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

const children: ChildProcess[] = [];

/** `node --import tsx <script> ...args`; stdout piped unless `stdio` says otherwise. */
export function startChild(script: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = [], stdio: StdioOptions = ['ignore', 'pipe', 'inherit'], cwd = root): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, ...NODE_ARGS, script, ...args], { cwd, env, stdio });
  children.push(child);
  return child;
}

/** SIGTERM every child (the service shuts down gracefully, and writes its --cpu-prof then). */
export async function stopChildren(): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      if ((await Promise.race([exited.then(() => true), sleep(5000).then(() => false)])) === false) child.kill('SIGKILL');
    }),
  );
}

/** A last resort when something throws past the caller's finally (or the user presses Ctrl-C). */
export function killChildrenOnExit(cleanup: () => void): void {
  process.on('exit', () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    cleanup();
  });
  process.on('SIGINT', () => process.exit(130));
}

export async function firstLine(child: ChildProcess, what: string): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const line = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready`)))),
    sleep(60_000).then(() => Promise.reject(new Error(`${what} did not start within 60 s`))),
  ]);
  lines.close();
  child.stdout!.resume(); // nothing else is read from it
  return line;
}

/** A port nothing listens on right now (the service takes its port from PORT, not 0). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function waitForHealth(base: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}) before it was ready`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the service did not become healthy within 60 s');
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined off Linux. */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime (fields 14 and 15)
  } catch {
    return undefined;
  }
}

export interface LoadResult {
  rps: number;
  done: number;
  failed: number;
  seconds: number;
  /** Per-request latencies in ms, ascending (only when asked for). */
  latencies: number[];
}

/**
 * Closed loop: `loops` loops, each keeping one request in flight, for `seconds`. A request
 * counts as done when `ok(status)`; anything else (or a throw) is a failure.
 */
export async function closedLoop(pool: Pool, send: (pool: Pool) => Promise<number>, ok: (status: number) => boolean, loops: number, seconds: number, keepLatencies = false): Promise<LoadResult> {
  let done = 0;
  let failed = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      for (let t = performance.now(); t < end; t = performance.now()) {
        try {
          const status = await send(pool);
          if (ok(status)) {
            done++;
            if (keepLatencies) latencies.push(performance.now() - t);
          } else failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { rps: done / elapsed, done, failed, seconds: elapsed, latencies: latencies.sort((a, b) => a - b) };
}

/** Runs a benchmark's main, reports a failure as exit code 1, and always stops the children. */
export async function runBench(main: () => Promise<void>, cleanup: () => void): Promise<void> {
  try {
    await main();
  } catch (err) {
    console.error('bench failed:', err instanceof Error ? err.message : err);
    process.exitCode = 1;
  } finally {
    await stopChildren();
    cleanup();
  }
}

/**
 * The environment of a benchmarked service: its port, a data directory under `dir`, a
 * throwaway master key (no dev-key warning), then `extra`. The rate limits are set far out
 * of reach: per-key limiting would otherwise throttle the load itself.
 */
export function serviceEnv(dir: string, port: number, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    MIMIC_DATA_DIR: `${dir}/data`,
    MIMIC_MASTER_KEY: randomBytes(32).toString('hex'),
    MIMIC_PUBLIC_URL: `http://127.0.0.1:${port}`,
    MIMIC_RATE_LIMIT: '1000000000',
    MIMIC_RATE_LIMIT_BURST: '1000000000',
    ...extra,
  };
}

/** `serve` with that env (of the checkout in `cwd`); BENCH_PROFILE_DIR=/dir adds --cpu-prof, the profile left there on exit. */
export function startService(env: NodeJS.ProcessEnv, stdio?: StdioOptions, cwd = root): ChildProcess {
  const profileDir = process.env.BENCH_PROFILE_DIR;
  return startChild('src/main.ts', ['serve'], env, profileDir && cwd === root ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], stdio, cwd);
}
