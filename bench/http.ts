/**
 * The request path, side by side in one run on one machine: a bare Hono app on the same
 * adapter (@hono/node-server) beside mimic's
 *   GET /health                      (no auth),
 *   GET /animations/{id}             (API key, one row read, the record presented),
 *   POST /animations -> 400          (API key, a JSON body that fails schema validation),
 * with request logging on as in production (mimic's stdout goes to a file).
 *
 *   node --import tsx bench/http.ts
 *
 * beside the lean app (bench/http-bare.ts lean): a plain Hono app of the same parts (request
 * id, pino request line to an async destination, rate-limiter-flexible per key, an API key
 * verified by HMAC and remembered, a prepared SQLite read, a JSON body), the floor of what
 * mimic's composition could reach, measured in the same run:
 *   lean GET /health, lean GET /items/{id} (key, limit, read), lean POST /items -> 400.
 *
 * Four processes: the bare app, the lean app, the service (temp data dir, render worker off so the one
 * animation record stays put), and this one, which only runs the load: an undici Pool per
 * target with 50 connections and 50 closed loops (each keeps one request in flight). After
 * a warm-up, ROUNDS rounds run every target for SECONDS each, the order rotating per round
 * so that no target always runs first on a just-quiet machine. Prints, per target, medians
 * over rounds of req/s, p50 and p99, the server's CPU per request (from /proc: steadier
 * than req/s on a shared machine), and the ratio to the bare app. Never fails on timing.
 *
 * Env: BENCH_SECONDS (default 4), BENCH_ROUNDS (default 5), BENCH_ONLY=health,get,bad,lean-health,lean-get,lean-bad
 * (targets to run; the bare app always runs), BENCH_PROFILE_DIR=/dir (the service
 * runs with --cpu-prof and leaves its .cpuprofile there; see bench/profile-summary.ts),
 * BENCH_BASELINE=<another checkout of mimic, with its node_modules> (a fifth process: that
 * checkout's service, answering the same three requests as targets base-health, base-get
 * and base-bad in the same rounds: a before/after measured side by side), BENCH_LEAN_DB=file
 * (the lean app reads a SQLite file in WAL mode and checks `PRAGMA data_version` before a
 * remembered key, as mimic does, instead of reading an in-memory database).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { median, percentile } from './stats.ts';
import { NODE_ARGS, closedLoop, cpuSeconds, firstLine, freePort, killChildrenOnExit, root, runBench, serviceEnv, startChild, startService, waitForHealth } from './procs.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 50;
const GOALS: Record<string, number> = { health: 0.7, get: 0.5, bad: 0.5 };
/** Another checkout of mimic (node_modules in place) to serve the same targets beside this one: a before/after in one run. */
const BASELINE = process.env.BENCH_BASELINE;
/** The lean app on a SQLite file in WAL mode with mimic's revocation check (`http-bare.ts lean <dir> file`), not in memory. */
const LEAN_ON_FILE = process.env.BENCH_LEAN_DB === 'file';

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-http-'));
killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));

interface Target {
  key: 'bare' | 'health' | 'get' | 'bad' | 'base-health' | 'base-get' | 'base-bad' | 'lean-health' | 'lean-get' | 'lean-bad';
  label: string;
  pool: Pool;
  pid: number | undefined;
  expect: number;
  request: Parameters<Pool['request']>[0];
}

async function send(pool: Pool, request: Target['request']): Promise<number> {
  const res = await pool.request(request);
  await res.body.dump();
  return res.statusCode;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU per answered request, µs. */
  cpuUs: number | undefined;
  /** This process's CPU share while it ran, % of one core. */
  clientPct: number;
  failed: number;
}

async function run(t: Target, seconds: number): Promise<Run> {
  const cpuBefore = cpuSeconds(t.pid);
  const clientBefore = process.cpuUsage();
  const r = await closedLoop(t.pool, (p) => send(p, t.request), (s) => s === t.expect, CONNECTIONS, seconds, true);
  const cpuAfter = cpuSeconds(t.pid);
  const client = process.cpuUsage(clientBefore);
  return {
    rps: r.rps,
    p50: r.latencies.length ? percentile(r.latencies, 0.5) : NaN,
    p99: r.latencies.length ? percentile(r.latencies, 0.99) : NaN,
    cpuUs: cpuBefore !== undefined && cpuAfter !== undefined ? (1e6 * (cpuAfter - cpuBefore)) / Math.max(1, r.done + r.failed) : undefined,
    clientPct: Math.round((client.user + client.system) / 1e4 / r.seconds),
    failed: r.failed,
  };
}

interface Mimic {
  base: string;
  pid: number | undefined;
  headers: Record<string, string>;
  animationId: string;
  logFile: string;
}

/**
 * A service of the checkout in `cwd` on its own data dir, logging every request to a file as
 * it would to a log collector, with a user and API key (through its CLI) and one animation
 * record (through its API).
 */
async function startMimic(cwd: string, name: string): Promise<Mimic> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = serviceEnv(join(dir, name), port, { MIMIC_LOG_REQUESTS: 'true', MIMIC_WORKER: 'false' });
  const logFile = join(dir, `${name}.log`);
  const logFd = openSync(logFile, 'w');
  const service = startService(env, ['ignore', logFd, 'inherit'], cwd);
  closeSync(logFd);
  await waitForHealth(base, service);
  const user = JSON.parse(
    execFileSync(process.execPath, [...NODE_ARGS, 'src/main.ts', 'users', 'create', '--name', 'bench'], { cwd, env, encoding: 'utf8' }).trim(),
  ) as { api_key: string };
  const headers = { authorization: `Basic ${user.api_key}`, 'content-type': 'application/json' };
  const created = await fetch(`${base}/animations`, { method: 'POST', headers, body: '{}' });
  const animation = (await created.json()) as { id: string };
  if (created.status !== 201) throw new Error(`${name}: POST /animations answered ${created.status}: ${JSON.stringify(animation)}`);
  return { base, pid: service.pid, headers, animationId: animation.id, logFile };
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`layout: bare app, mimic and the load generator in three processes; undici Pool, ${CONNECTIONS} connections, ${CONNECTIONS} closed loops per target`);
  console.log(`runs: ${WARMUP_SECONDS} s warm-up per target, then ${ROUNDS} rounds x ${SECONDS} s per target, order rotating\n`);

  // 1. The bare app.
  const bare = startChild('bench/http-bare.ts', [], process.env);
  const { port: barePort } = JSON.parse(await firstLine(bare, 'the bare app')) as { port: number };

  // The lean app, logging to a file too.
  const lean = startChild('bench/http-bare.ts', ['lean', dir, ...(LEAN_ON_FILE ? ['file'] : [])], process.env);
  const leanReady = JSON.parse(await firstLine(lean, 'the lean app')) as { port: number; apiKey: string; id: string };

  // 2. The service, and the baseline's when asked for.
  const mimic = await startMimic(root, 'service');
  const baseline = BASELINE ? await startMimic(resolve(BASELINE), 'baseline') : undefined;

  const only = process.env.BENCH_ONLY?.split(',');
  const leanBase = `http://127.0.0.1:${leanReady.port}`;
  const leanHeaders = { authorization: `Basic ${leanReady.apiKey}`, 'content-type': 'application/json' };
  const pool = (origin: string) => new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
  const badBody = JSON.stringify({ source_url: 'ftp://example.com/a.png', config: { mute: 'yes' } });
  const mimicTargets = (m: Mimic, who: string, prefix: '' | 'base-'): Target[] => [
    { key: `${prefix}health`, label: `${who} GET /health`, pool: pool(m.base), pid: m.pid, expect: 200, request: { path: '/health', method: 'GET' } },
    { key: `${prefix}get`, label: `${who} GET /animations/{id}`, pool: pool(m.base), pid: m.pid, expect: 200, request: { path: `/animations/${m.animationId}`, method: 'GET', headers: m.headers } },
    { key: `${prefix}bad`, label: `${who} POST /animations 400`, pool: pool(m.base), pid: m.pid, expect: 400, request: { path: '/animations', method: 'POST', headers: m.headers, body: badBody } },
  ];
  const targets: Target[] = [
    { key: 'bare' as const, label: 'bare Hono GET /', pool: pool(`http://127.0.0.1:${barePort}`), pid: bare.pid, expect: 200, request: { path: '/', method: 'GET' as const } },
    ...mimicTargets(mimic, 'mimic', ''),
    ...(baseline ? mimicTargets(baseline, 'baseline', 'base-') : []),
    { key: 'lean-health' as const, label: 'lean GET /health', pool: pool(leanBase), pid: lean.pid, expect: 200, request: { path: '/health', method: 'GET' as const } },
    { key: 'lean-get' as const, label: 'lean GET /items/{id}', pool: pool(leanBase), pid: lean.pid, expect: 200, request: { path: `/items/${leanReady.id}`, method: 'GET' as const, headers: leanHeaders } },
    { key: 'lean-bad' as const, label: 'lean POST /items 400', pool: pool(leanBase), pid: lean.pid, expect: 400, request: { path: '/items', method: 'POST' as const, headers: leanHeaders, body: badBody } },
  ].filter((t) => t.key === 'bare' || !only || only.includes(t.key));

  try {
    for (const t of targets) {
      const status = await send(t.pool, t.request);
      if (status !== t.expect) throw new Error(`${t.label} answered ${status}, expected ${t.expect}`);
      await run(t, WARMUP_SECONDS);
    }
    const runs = new Map<Target['key'], Run[]>(targets.map((t) => [t.key, []]));
    const ratios = new Map<Target['key'], number[]>(targets.map((t) => [t.key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
      const got = new Map<Target['key'], Run>();
      for (const t of order) got.set(t.key, await run(t, SECONDS));
      for (const t of targets) {
        runs.get(t.key)!.push(got.get(t.key)!);
        ratios.get(t.key)!.push(got.get(t.key)!.rps / got.get('bare')!.rps);
      }
      console.log(`  round ${round + 1}: ${targets.map((t) => `${t.key} ${got.get(t.key)!.rps.toFixed(0)}`).join(' | ')} req/s`);
    }

    const fmt = (v: number, w: number, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '-').padStart(w);
    const bareCpu = median(runs.get('bare')!.map((r) => r.cpuUs ?? NaN));
    console.log(`\n  ${'target'.padEnd(28)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}${'CPU µs/req'.padStart(12)}${'CPU ratio'.padStart(11)}${'client %'.padStart(10)}`);
    for (const t of targets) {
      const rs = runs.get(t.key)!;
      const cpuUs = median(rs.map((r) => r.cpuUs ?? NaN));
      const failed = rs.reduce((n, r) => n + r.failed, 0);
      console.log(
        `  ${t.label.padEnd(28)}${fmt(median(rs.map((r) => r.rps)), 8)}${fmt(median(rs.map((r) => r.p50)), 9, 2)}${fmt(median(rs.map((r) => r.p99)), 9, 2)}` +
          `${fmt(median(ratios.get(t.key)!), 8, 3)}${fmt(cpuUs, 12)}${fmt(bareCpu / cpuUs, 11, 3)}${fmt(median(rs.map((r) => r.clientPct)), 10)}${failed ? `  (${failed} failed)` : ''}`,
      );
    }
    console.log('\n  ratio: median over rounds of target req/s / bare req/s in the same round');
    console.log('  CPU ratio: bare CPU per request / target CPU per request (the share of the bare rate one core could serve)');
    const goals = targets
      .filter((t) => GOALS[t.key] !== undefined)
      .map((t) => {
        const r = median(ratios.get(t.key)!);
        const floor = ratios.get(`lean-${t.key}` as Target['key']);
        const before = ratios.get(`base-${t.key}` as Target['key']);
        const leanSays = (floor ? `; lean app ${median(floor).toFixed(2)}x` : '') + (before ? `; baseline ${median(before).toFixed(2)}x` : '');
        return `${t.key} ${r.toFixed(2)}x (goal ≥ ${GOALS[t.key]}x: ${r >= GOALS[t.key]! ? 'meets' : 'misses'}${leanSays})`;
      });
    console.log(`  goals: ${goals.join('; ')}`);
    console.log(`  load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const lines = (m: Mimic) => readFileSync(m.logFile, 'utf8').split('\n').filter((l) => l.includes('"request"')).length;
    console.log(`  request log lines written by the service: ${lines(mimic)}${baseline ? `, by the baseline: ${lines(baseline)}` : ''}`);
  } finally {
    await Promise.all(targets.map((t) => t.pool.close()));
  }
}

await runBench(main, () => rmSync(dir, { recursive: true, force: true }));
