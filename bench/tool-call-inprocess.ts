/**
 * callTool alone, in one process: the runtime's own work per call (tool lookup, input
 * validation, secret lookup and decryption, request building, redaction, the audit write)
 * with the upstream replaced by an in-memory answer. No HTTP, no network, so a busy machine
 * disturbs it less than bench/tools.ts; it measures the part of a call that src/tools/ owns.
 *
 *   node --import tsx bench/tool-call-inprocess.ts
 *
 * Prints, per round and as the median over rounds, the wall time and the process CPU time
 * per call (CPU time is what a busy shared machine disturbs least), with 1 call at a time
 * and with 50 in flight. Never fails on timing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { silentLogger } from '../src/log.ts';
import { createUser } from '../src/users/accounts.ts';
import { userDeps } from '../test/helpers/harness.ts';
import { createSecret } from '../src/secrets/service.ts';
import { createTool } from '../src/tools/service.ts';
import { callTool } from '../src/tools/call.ts';
import type { GuardedClient } from '../src/egress/index.ts';
import { median } from './stats.ts';

const ROUNDS = 7;
const CALLS = 3000;

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-call-'));
const config = loadConfig({ MIMIC_DATA_DIR: dir, PORT: '8080', MIMIC_PUBLIC_URL: 'http://mimic.test', MIMIC_EGRESS_ALLOW: 'localhost' });
const services = createServices(config, { log: silentLogger });
await services.vault.ready();
const { user } = await createUser(userDeps(services), { credits: 0, permissions: [] });
const body = Buffer.from('{"city":"Oslo","temp":3}');
const client = { request: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body }) } as unknown as GuardedClient;
const deps = { ...services.modules.tools.deps, client };
const secret = await createSecret(services.modules.secrets.deps, user.id, { type: 'bearer', provider: 'weather', token: 'tok_bench_secret' });
const tool = await createTool(deps, user.id, {
  name: 'get_weather', description: 'Weather', provider: 'weather',
  schema: { parameters: { type: 'object', properties: { city: { type: 'string', minLength: 1, pattern: '^[A-Za-z ]+$' } }, required: ['city'] } },
  config: { type: 'server', url: 'https://localhost/weather', method: 'GET' },
  auth: { secret_id: secret.id },
});
const call = () => callTool(deps, user.id, tool.id, { input: { city: 'Oslo' } });

for (let i = 0; i < 500; i++) await call();

async function rounds(inFlight: number): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    let left = CALLS;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await call();
    }));
    const used = process.cpuUsage(cpuStarted);
    wall.push(((performance.now() - started) * 1000) / CALLS);
    cpu.push((used.user + used.system) / CALLS);
  }
  console.log(`${inFlight} in flight: wall ${wall.map((v) => v.toFixed(0)).join(' ')} µs/call, median ${median(wall).toFixed(1)}; CPU ${cpu.map((v) => v.toFixed(0)).join(' ')} µs/call, median ${median(cpu).toFixed(1)}`);
}

console.log('callTool in process, upstream in memory');
await rounds(1);
await rounds(50);
await services.close();
rmSync(dir, { recursive: true, force: true });
