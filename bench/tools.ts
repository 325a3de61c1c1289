/**
 * Benchmark of a tool call through the runtime, side by side with the same request sent
 * straight to the upstream. Three processes, so that each side pays only for itself on a
 * small machine: the upstream (bench/tools-upstream.ts, keep-alive HTTPS, tiny JSON body),
 * the service (temp data dir, logging, worker and webhooks off), and this one, which only
 * runs the undici clients.
 *
 *   node --import tsx bench/tools.ts
 *
 * Direct:  GET https://localhost:<upstream>/weather?city=Oslo with `authorization: Bearer <token>`.
 * Runtime: POST http://127.0.0.1:<mimic>/tools/{id}/calls {"input":{"city":"Oslo"}}, the tool
 *          holding a bearer secret and pointing at the same upstream URL.
 * Prints medians over rounds (directions alternate per round); never fails on timing.
 *
 * BENCH_PROFILE_DIR=/some/dir also runs the service with `--cpu-prof` and leaves its
 * .cpuprofile there (open it in Chrome DevTools or speedscope) to see where the time goes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generate } from 'selfsigned';
import { Pool } from 'undici';
import { median, percentile } from './stats.ts';
import { NODE_ARGS, closedLoop, cpuSeconds, firstLine, freePort, killChildrenOnExit, root, runBench, serviceEnv, startChild, startService, waitForHealth } from './procs.ts';

const WARMUP_CALLS = 500;
const LATENCY_ROUNDS = 5;
const LATENCY_CALLS = 1000;
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_CONNECTIONS = 50;
const THROUGHPUT_SECONDS = 4;
const GOALS = 'goal: p50 added < 0.5 ms, throughput ratio ≥ 0.4';

const ms = (v: number) => `${v.toFixed(3)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-tools-'));
killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));

// ------------------------------------------------------------------ clients

interface Target {
  name: 'direct' | 'runtime';
  pool: Pool;
  send(pool: Pool): Promise<{ status: number; text: string }>;
}

async function once(pool: Pool, opts: Parameters<Pool['request']>[0]): Promise<{ status: number; text: string }> {
  const res = await pool.request(opts);
  return { status: res.statusCode, text: await res.body.text() };
}

/** Sequential calls on one keep-alive connection: per-call latencies, ascending. */
async function latencies(target: Target, calls: number, onBody?: (text: string) => void): Promise<number[]> {
  const out = new Array<number>(calls);
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const { status, text } = await target.send(target.pool);
    out[i] = performance.now() - t;
    if (status !== 200) throw new Error(`${target.name} answered ${status}: ${text.slice(0, 300)}`);
    onBody?.(text);
  }
  return out.sort((a, b) => a - b);
}

/** `connections` loops, each keeping one request in flight, for `seconds`: requests/s and failures. */
const throughput = (target: Target, pool: Pool, connections: number, seconds: number) =>
  closedLoop(pool, async (p) => (await target.send(p)).status, (status) => status === 200, connections, seconds);

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}`);
  console.log(`layout: upstream, service and clients in three processes; undici keep-alive clients\n`);

  // 1. Upstream: its certificate is the CA the service trusts through NODE_EXTRA_CA_CERTS.
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });
  const certFile = join(dir, 'upstream-ca.pem');
  const keyFile = join(dir, 'upstream-key.pem');
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  const token = `bench_${randomBytes(18).toString('base64url')}`;
  const upstream = startChild('bench/tools-upstream.ts', [], { ...process.env, UPSTREAM_CERT_FILE: certFile, UPSTREAM_KEY_FILE: keyFile, UPSTREAM_TOKEN: token });
  const { port: upstreamPort } = JSON.parse(await firstLine(upstream, 'the upstream')) as { port: number };
  const upstreamOrigin = `https://localhost:${upstreamPort}`;

  // 2. The service.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = serviceEnv(dir, port, {
    MIMIC_EGRESS_ALLOW: 'localhost',
    MIMIC_LOG_REQUESTS: 'false',
    MIMIC_WORKER: 'false',
    MIMIC_WEBHOOKS: 'false',
    NODE_EXTRA_CA_CERTS: certFile,
  });
  const service = startService(env);
  service.stdout!.resume(); // the startup log line; nothing to read
  await waitForHealth(base, service);

  // 3. A user (CLI), a bearer secret, a GET tool with auth pointing at the upstream.
  const user = JSON.parse(
    execFileSync(process.execPath, [...NODE_ARGS, 'src/main.ts', 'users', 'create', '--name', 'bench'], { cwd: root, env, encoding: 'utf8' }).trim(),
  ) as { api_key: string };
  const auth = { authorization: `Basic ${user.api_key}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown): Promise<{ id: string }> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json as { id: string };
  };
  const secret = await post('/secrets', { type: 'bearer', provider: 'bench-weather', token });
  const tool = await post('/tools', {
    name: 'get_weather',
    description: 'Current weather for a city',
    provider: 'bench-weather',
    schema: { parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    config: { type: 'server', url: `${upstreamOrigin}/weather`, method: 'GET' },
    auth: { secret_id: secret.id },
  });

  const directRequest = { path: '/weather?city=Oslo', method: 'GET' as const, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } };
  const runtimeRequest = { path: `/tools/${tool.id}/calls`, method: 'POST' as const, headers: auth, body: JSON.stringify({ input: { city: 'Oslo' } }) };
  const directPool = (connections: number) => new Pool(upstreamOrigin, { connections, connect: { ca: pems.cert } });
  const runtimePool = (connections: number) => new Pool(base, { connections });
  const direct: Target = { name: 'direct', pool: directPool(1), send: (p) => once(p, directRequest) };
  const runtime: Target = { name: 'runtime', pool: runtimePool(1), send: (p) => once(p, runtimeRequest) };
  const health: Target = { name: 'runtime', pool: runtime.pool, send: (p) => once(p, { path: '/health', method: 'GET' }) };

  try {
    // The runtime really attached the secret, got the upstream's answer, and masked nothing it should not.
    const probe = JSON.parse((await runtime.send(runtime.pool)).text) as { output?: { status: number; body: unknown } };
    if (probe.output?.status !== 200) throw new Error(`the tool call did not reach the upstream with its secret: ${JSON.stringify(probe)}`);
    console.log(`setup: tool ${tool.id} -> ${upstreamOrigin}/weather, secret ${secret.id}; a runtime call answers ${JSON.stringify(probe.output.body)}\n`);

    // 4. Warm-up (JIT, TLS sessions, SQLite page cache).
    await latencies(direct, WARMUP_CALLS);
    await latencies(runtime, WARMUP_CALLS);
    await latencies(health, WARMUP_CALLS);

    // 5. Concurrency 1.
    console.log(`concurrency 1: ${LATENCY_ROUNDS} rounds x ${LATENCY_CALLS} calls per path, alternating (after ${WARMUP_CALLS} warm-up calls each)`);
    const rows: { d50: number; d99: number; r50: number; r99: number; inside50: number; h50: number }[] = [];
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      const inside: number[] = [];
      const collect = (text: string) => inside.push((JSON.parse(text) as { duration_ms: number }).duration_ms);
      // Alternate which path goes first, so neither always runs on a just-warmed machine.
      let d: number[];
      let r: number[];
      if (round % 2 === 0) {
        d = await latencies(direct, LATENCY_CALLS);
        r = await latencies(runtime, LATENCY_CALLS, collect);
      } else {
        r = await latencies(runtime, LATENCY_CALLS, collect);
        d = await latencies(direct, LATENCY_CALLS);
      }
      const h = await latencies(health, LATENCY_CALLS);
      const row = { d50: percentile(d, 0.5), d99: percentile(d, 0.99), r50: percentile(r, 0.5), r99: percentile(r, 0.99), inside50: median(inside), h50: percentile(h, 0.5) };
      rows.push(row);
      console.log(
        `  round ${round + 1}: direct p50 ${ms(row.d50)} p99 ${ms(row.d99)} | runtime p50 ${ms(row.r50)} p99 ${ms(row.r99)}` +
          ` | added p50 ${ms(row.r50 - row.d50)} p99 ${ms(row.r99 - row.d99)} | duration_ms p50 ${row.inside50.toFixed(1)} | GET /health p50 ${ms(row.h50)}`,
      );
    }
    const col = (k: keyof (typeof rows)[number]) => median(rows.map((r) => r[k]));
    const added50 = median(rows.map((r) => r.r50 - r.d50));
    const added99 = median(rows.map((r) => r.r99 - r.d99));
    console.log(`  median of rounds:`);
    console.log(`    direct   p50 ${ms(col('d50'))}   p99 ${ms(col('d99'))}`);
    console.log(`    runtime  p50 ${ms(col('r50'))}   p99 ${ms(col('r99'))}`);
    console.log(`    added    p50 ${ms(added50)}   p99 ${ms(added99)}`);
    console.log(`    mimic's own duration_ms (inside callTool, upstream call included): p50 ${col('inside50').toFixed(2)} ms`);
    console.log(`      => in front of callTool (client->service hop, HTTP parsing, auth, body, JSON out): ~${ms(col('r50') - col('inside50'))}`);
    console.log(`      => inside callTool beyond the upstream round trip (lookup, decrypt, audit write): ~${ms(col('inside50') - col('d50'))}`);
    console.log(`    baseline: GET /health on the service (no auth, no tool) p50 ${ms(col('h50'))}\n`);

    // 6. Throughput at 50 connections.
    console.log(`throughput: ${THROUGHPUT_CONNECTIONS} connections, ${THROUGHPUT_CONNECTIONS} requests in flight, ${THROUGHPUT_SECONDS} s per run, ${THROUGHPUT_ROUNDS} rounds alternating`);
    const wide = { direct: directPool(THROUGHPUT_CONNECTIONS), runtime: runtimePool(THROUGHPUT_CONNECTIONS) };
    try {
      await throughput(direct, wide.direct, THROUGHPUT_CONNECTIONS, 1); // opens the connections
      await throughput(runtime, wide.runtime, THROUGHPUT_CONNECTIONS, 1);
      const rps = { direct: [] as number[], runtime: [] as number[] };
      for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
        const order = round % 2 === 0 ? ([direct, runtime] as const) : ([runtime, direct] as const);
        const line: string[] = [];
        for (const target of order) {
          // The server process of each path: how busy it was, and its CPU per request.
          const server = target.name === 'runtime' ? service : upstream;
          const cpuBefore = cpuSeconds(server.pid);
          const clientBefore = process.cpuUsage();
          const run = await throughput(target, wide[target.name], THROUGHPUT_CONNECTIONS, THROUGHPUT_SECONDS);
          const cpuAfter = cpuSeconds(server.pid);
          const clientUsage = process.cpuUsage(clientBefore);
          const clientShare = Math.round((clientUsage.user + clientUsage.system) / 1e4 / run.seconds);
          rps[target.name].push(run.rps);
          const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
          const cpuNote = cpu === undefined ? '' : ` [${target.name === 'runtime' ? 'service' : 'upstream'} ${Math.round((100 * cpu) / run.seconds)}% of a core, ${((1e6 * cpu) / Math.max(1, run.done + run.failed)).toFixed(0)} µs CPU/req; bench client ${clientShare}%]`;
          line.push(`${target.name} ${run.rps.toFixed(0)} req/s${run.failed ? ` (${run.failed} failed)` : ''}${cpuNote}`);
        }
        console.log(`  round ${round + 1}: ${line.join(' | ')}`);
      }
      const d = median(rps.direct);
      const r = median(rps.runtime);
      console.log(`  median: direct ${d.toFixed(0)} req/s, runtime ${r.toFixed(0)} req/s, ratio runtime/direct ${(r / d).toFixed(3)}`);
      // The ceiling of any call through the service on this machine: its bare HTTP hop.
      const ceiling = await throughput(health, wide.runtime, THROUGHPUT_CONNECTIONS, THROUGHPUT_SECONDS);
      console.log(`  ceiling: GET /health on the service (no auth, no tool, no upstream) ${ceiling.rps.toFixed(0)} req/s = ${(ceiling.rps / d).toFixed(3)} of direct; tool calls reach ${(r / ceiling.rps).toFixed(2)} of it\n`);

      console.log('summary');
      console.log(`  added latency p50 ${ms(added50)}, p99 ${ms(added99)}; throughput ratio ${(r / d).toFixed(3)}`);
      console.log(`  ${GOALS}`);
      console.log(`  (on this machine: p50 added ${added50 < 0.5 ? 'meets' : 'misses'} the goal, throughput ratio ${r / d >= 0.4 ? 'meets' : 'misses'} it)`);
    } finally {
      await Promise.all([wide.direct.close(), wide.runtime.close()]);
    }
  } finally {
    await Promise.all([direct.pool.close(), runtime.pool.close()]);
  }
}

await runBench(main, () => rmSync(dir, { recursive: true, force: true }));
