/**
 * What a body over the limit costs the service, and whether a keep-alive client loses a
 * request after one (issue 17, 2.1 and 2.3). The service runs in its own process (render
 * worker off, MIMIC_VIDEO_UPLOAD_MAX_BYTES 1 MiB); this process only sends.
 *
 *   1. DELETE /talks/streams/{id} with a chunked body of BODY_MIB (default 128) MiB, while
 *      GET /health is asked every 50 ms on another connection: the DELETE's answer and time,
 *      the service's peak RSS during it (sampled from /proc every 20 ms; its high-water mark
 *      before and after), and the slowest /health.
 *   2. 8 chunked 2 MiB POST /animations (limit 1 MiB) on one keep-alive undici Client, each
 *      followed by GET /animations?limit=1 on the same client: how many requests got no answer.
 *      IN_A_ROW and POST_MIB change the 8 and the 2.
 *   3. The same with POST /videos (cap 1 MiB).
 *
 *   node --import tsx bench/body-limits.ts
 *
 * Prints figures; never fails on timing (only when the service cannot start).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client } from 'undici';
import { NODE_ARGS, freePort, killChildrenOnExit, root, runBench, serviceEnv, sleep, startService, waitForHealth } from './procs.ts';

const BODY_MIB = Number(process.env.BODY_MIB ?? 128);
const IN_A_ROW = Number(process.env.IN_A_ROW ?? 8);
const POST_MIB = Number(process.env.POST_MIB ?? 2);
const MiB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-body-'));
killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));

const kib = (field: 'VmRSS' | 'VmHWM', pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
};
const mib = (k: number) => `${(k / 1024).toFixed(0)} MiB`;

/** `total` bytes in 64 KiB chunks, as a chunked body (no Content-Length). */
function chunks(total: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return Readable.from((function* () {
    for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
  })());
}

async function largeDelete(base: string, pid: number, headers: Record<string, string>): Promise<void> {
  const hwmBefore = kib('VmHWM', pid);
  let peak = kib('VmRSS', pid);
  const sampler = setInterval(() => (peak = Math.max(peak, kib('VmRSS', pid))), 20);
  let slowestHealth = 0;
  let sending = true;
  const health = new Client(base);
  const probe = (async () => {
    while (sending) {
      const t = performance.now();
      const res = await health.request({ path: '/health', method: 'GET' });
      await res.body.dump();
      slowestHealth = Math.max(slowestHealth, performance.now() - t);
      await sleep(50);
    }
  })();
  const client = new Client(base);
  const started = performance.now();
  let answer: string;
  let answeredMs = Number.NaN;
  try {
    const res = await client.request({ path: '/talks/streams/strm_bench', method: 'DELETE', headers, body: chunks(BODY_MIB * MiB) });
    answeredMs = performance.now() - started;
    answer = `${res.statusCode} ${((await res.body.json()) as { kind?: string }).kind ?? ''}`;
  } catch (err) {
    answer = `no answer (${(err as { code?: string }).code ?? (err as Error).message})`;
  }
  const doneMs = performance.now() - started;
  sending = false;
  await probe;
  clearInterval(sampler);
  await Promise.all([client.close().catch(() => {}), health.close()]);
  console.log(`DELETE with a ${BODY_MIB} MiB chunked body: ${answer}, answered after ${answeredMs.toFixed(0)} ms, request over after ${doneMs.toFixed(0)} ms`);
  console.log(`  service RSS: peak ${mib(peak)} while it ran (high-water mark ${mib(hwmBefore)} before, ${mib(kib('VmHWM', pid))} after); slowest GET /health ${slowestHealth.toFixed(0)} ms`);
}

/** IN_A_ROW (8) times: a chunked POST_MIB (2) MiB POST to `path`, then a normal request, on one keep-alive client. */
async function overLimitInARow(base: string, path: string, headers: Record<string, string>): Promise<void> {
  const client = new Client(base);
  const seen: string[] = [];
  let lost = 0;
  const send = async (opts: Parameters<Client['request']>[0]) => {
    try {
      const res = await client.request(opts);
      await res.body.dump();
      seen.push(String(res.statusCode));
    } catch (err) {
      lost++;
      seen.push((err as { code?: string }).code ?? 'error');
    }
  };
  for (let i = 0; i < IN_A_ROW; i++) {
    await send({ path, method: 'POST', headers: { ...headers, 'content-type': 'application/octet-stream' }, body: chunks(POST_MIB * MiB) });
    await send({ path: '/animations?limit=1', method: 'GET', headers });
  }
  await client.close().catch(() => {});
  console.log(`${IN_A_ROW} chunked ${POST_MIB} MiB POST ${path}, each followed by a GET, one keep-alive client: ${lost} of ${2 * IN_A_ROW} requests lost`);
  if (IN_A_ROW <= 8) console.log(`  ${seen.join(' ')}`);
}

async function main(): Promise<void> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = serviceEnv(dir, port, { MIMIC_LOG_REQUESTS: 'false', MIMIC_WORKER: 'false', MIMIC_VIDEO_UPLOAD_MAX_BYTES: String(MiB) });
  const service = startService(env, ['ignore', 'ignore', 'inherit']);
  await waitForHealth(base, service);
  const user = JSON.parse(
    execFileSync(process.execPath, [...NODE_ARGS, 'src/main.ts', 'users', 'create', '--name', 'bench'], { cwd: root, env, encoding: 'utf8' }).trim(),
  ) as { api_key: string };
  const headers = { authorization: `Basic ${user.api_key}` };
  console.log(`node ${process.version}; MIMIC_MAX_BODY_BYTES 1 MiB, MIMIC_VIDEO_UPLOAD_MAX_BYTES 1 MiB\n`);
  await largeDelete(base, service.pid!, { ...headers, 'content-type': 'application/json' });
  await overLimitInARow(base, '/animations', headers);
  await overLimitInARow(base, '/videos', headers);
}

await runBench(main, () => rmSync(dir, { recursive: true, force: true }));
