/**
 * End-to-end scaffolding for remote compute: a real `serve` process with
 * MIMIC_COMPUTE_BACKEND=remote on a temp data directory, worker tokens from the CLI, worker
 * processes, and waiting for animations. Shared by the TypeScript and Python worker tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DRIVER_BANK, DRIVER_CATEGORIES } from '../../src/animations/driver-bank.ts';
import { bankMotion } from '../../src/compute/local/motion.ts';
import { NODE_ARGS, ROOT, mimic } from './cli.ts';

export interface Proc {
  proc: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
}

export function spawnProc(args: string[], env: Record<string, string>, command = process.execPath): Proc {
  const proc = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

const running = (p: Proc) => p.proc.exitCode === null && p.proc.signalCode === null;

/** SIGKILLs every process still running and waits for all of them (afterAll). */
export async function killAll(procs: Proc[]): Promise<void> {
  for (const p of procs) if (running(p)) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
}

/** A reason to stop waiting when none of `procs` runs any more (for waitForAnimations' giveUpIf). */
export const noneRunning = (procs: Proc[], what = 'every worker exited') => (): string | undefined => (procs.some(running) ? undefined : what);

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

export interface TaskRecord {
  id: string;
  job_id: string;
  status: string;
  attempts: number;
  worker_name: string | null;
  progress_done: number | null;
  render_ms: number | null;
  created_at: number;
  claimed_at: number | null;
  uploaded_at: number | null;
  finished_at: number | null;
}

export interface RemoteService {
  base: string;
  dataDir: string;
  /** The environment the service runs with (CLI commands on its data directory use it too). */
  env: Record<string, string>;
  server: Proc;
  /** An API key of a user with plenty of credits. */
  key: string;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A new worker token from `workers add`. */
  addWorker(name: string): { id: string; token: string };
  /** Every compute task, oldest first, with the animation each renders. */
  tasks(): (TaskRecord & { animation_id: string; kind: string })[];
  /** Stops the service (SIGKILL) and removes its data directory. */
  close(): Promise<void>;
}

/** `serve` with the remote backend: it renders nothing itself, every render is a task for workers. */
export async function startRemoteService(opts: { leaseMs?: number; env?: Record<string, string> } = {}): Promise<RemoteService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-remote-e2e-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    MIMIC_DATA_DIR: dataDir,
    MIMIC_PUBLIC_URL: base,
    MIMIC_COMPUTE_BACKEND: 'remote',
    MIMIC_COMPUTE_LEASE_MS: String(opts.leaseMs ?? 30_000),
    MIMIC_LOG_REQUESTS: 'false',
    ...opts.env,
  };
  // Master key and schema first, so `serve` and the CLI never race to create them.
  const migrated = mimic(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const server = spawnProc([...NODE_ARGS, 'serve'], env);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (i > 300 || server.proc.exitCode !== null) throw new Error(`service did not become ready:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const created = mimic(['users', 'create', '--name', 'remote-e2e', '--credits', '1000'], env);
  const key = JSON.parse(created.lines[0]!).api_key as string;
  const db = new Database(join(dataDir, 'mimic.db'), { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    base,
    dataDir,
    env,
    server,
    key,
    async api(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Basic ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    addWorker(name) {
      const res = mimic(['workers', 'add', '--name', name], env);
      if (res.code !== 0) throw new Error(`workers add failed: ${res.stderr}`);
      const { id, token } = JSON.parse(res.lines[0]!) as { id: string; token: string };
      return { id, token };
    },
    tasks() {
      return db
        .prepare(
          `SELECT t.id, t.job_id, t.status, t.attempts, t.worker_name, t.progress_done, t.render_ms, t.created_at, t.claimed_at,
                  t.uploaded_at, t.finished_at, t.kind, j.resource_id AS animation_id
           FROM compute_tasks t JOIN jobs j ON j.id = t.job_id ORDER BY t.created_at, t.id`,
        )
        .all() as (TaskRecord & { animation_id: string; kind: string })[];
    },
    async close() {
      db.close();
      if (server.proc.exitCode === null && server.proc.signalCode === null) {
        server.proc.kill('SIGKILL');
        await server.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `mimic worker` against the service, the token passed as env:NAME (so it is not in `ps`). */
export function spawnWorker(service: Pick<RemoteService, 'base'>, token: string, name: string): Proc {
  return spawnProc([...NODE_ARGS, 'worker', '--server', service.base, '--token', 'env:MIMIC_WORKER_TOKEN', '--name', name], { MIMIC_WORKER_TOKEN: token });
}

const finished = (r: any) => r.status === 'done' || r.status === 'error';

/** Polls until every animation is done or in error; returns the records in the order of `ids`. */
export async function waitForAnimations(
  service: Pick<RemoteService, 'api'>,
  ids: string[],
  opts: { timeoutMs?: number; diagnostics?: () => string; /** A reason to stop waiting at once (all workers died...). */ giveUpIf?: () => string | undefined } = {},
): Promise<any[]> {
  const until = Date.now() + (opts.timeoutMs ?? 180_000);
  const records = new Map<string, any>();
  for (;;) {
    for (const id of ids) {
      if (records.has(id)) continue;
      const rec = (await service.api('GET', `/animations/${id}`)).body;
      if (finished(rec)) records.set(id, rec);
    }
    if (records.size === ids.length) return ids.map((id) => records.get(id));
    const reason = opts.giveUpIf?.();
    if (reason || Date.now() > until) {
      const left = ids.filter((id) => !records.has(id));
      throw new Error(`${reason ?? 'timed out'} waiting for ${left.length} animation(s): ${left.join(', ')}\n${opts.diagnostics?.() ?? ''}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls `probe` until it returns a value (not undefined). */
export async function waitUntil<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `n` bank drivers with the fewest frames (quick renders), as `bank://category/name`. */
export function shortBankDrivers(n: number): string[] {
  const all = DRIVER_CATEGORIES.filter((c) => c !== 'classics').flatMap((category) =>
    DRIVER_BANK[category].drivers.map((name) => ({ url: `bank://${category}/${name}`, frames: bankMotion(category, name)!.frames.length })),
  );
  return all.sort((a, b) => a.frames - b.frames || a.url.localeCompare(b.url)).slice(0, n).map((d) => d.url);
}

export { median } from '../../bench/stats.ts';
