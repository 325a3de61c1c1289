/**
 * Benchmark of API-key authentication: the cost of one verification (HMAC + indexed SQLite
 * lookup) and of a whole authenticated request through the app, side by side with an
 * unauthenticated one; then the same for a bearer token (JWT) exchanged for that key, first
 * verified (ES256 signature, one indexed select) and then remembered. Prints medians of several rounds; never fails on timing.
 *
 *   node --import tsx bench/auth.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/server.ts';
import { createUser } from '../src/users/accounts.ts';
import { userStoreOn } from '../src/users/store-pg.ts';
import { deriveKey } from '../src/keys.ts';
import { randomId } from '../src/clock.ts';
import { silentLogger } from '../src/log.ts';
import { median } from './stats.ts';

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-auth-'));
const config = loadConfig({ MIMIC_DATA_DIR: dir, MIMIC_LOG_REQUESTS: 'false', MIMIC_RATE_LIMIT: '1000000000' });
const services = createServices(config, { log: silentLogger });
const app = buildApp(services);
const deps = { users: userStoreOn(services.store), clock: services.clock, newId: randomId, apiKeyHashKey: deriveKey(config.masterKey, 'api-key-hash') };
for (let i = 0; i < 1000; i++) await createUser(deps, { credits: 0, permissions: [] }); // a realistic table
const { apiKey } = await createUser(deps, { credits: 0, permissions: [] });

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model}, ${cpu.length} cores, node ${process.version}\n`);

const verifyRounds: number[] = [];
for (let r = 0; r < 7; r++) {
  const n = 20_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) if (!(await services.verifyKey(apiKey))) throw new Error('key not verified');
  verifyRounds.push(((performance.now() - t) * 1000) / n);
}
console.log(`key verification: median ${median(verifyRounds).toFixed(2)} µs per call`);

async function perRequest(path: string, headers: Record<string, string>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const n = 2000;
    const t = performance.now();
    for (let i = 0; i < n; i++) await (await app.request(path, { headers })).arrayBuffer();
    rounds.push(((performance.now() - t) * 1000) / n);
  }
  return median(rounds);
}
const open = await perRequest('/health', {});
const authed = await perRequest('/animations/drivers', { authorization: `Basic ${apiKey}` });
const bad = await perRequest('/animations/drivers', { authorization: `Basic mimic_${'x'.repeat(43)}` });
console.log(`GET /health (no auth):            ${open.toFixed(1)} µs per request`);
console.log(`GET /animations/drivers (auth):   ${authed.toFixed(1)} µs per request (${(authed / open).toFixed(2)}x)`);
console.log(`same with a wrong key (401):      ${bad.toFixed(1)} µs per request`);
console.log(`=> at most ${Math.round(1e6 / authed)} authenticated requests/s per core through the app (in-process, no socket)`);

const issued = await app.request('/auth/token', { method: 'POST', headers: { authorization: `Basic ${apiKey}` } });
const { access_token: token } = (await issued.json()) as { access_token: string };
const fresh: number[] = [];
for (let r = 0; r < 7; r++) {
  const n = 200;
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) tokens.push(((await (await app.request('/auth/token', { method: 'POST', headers: { authorization: `Basic ${apiKey}` } })).json()) as { access_token: string }).access_token);
  const t = performance.now();
  for (const jws of tokens) if (!(await services.verifyToken(jws))) throw new Error('token not verified');
  fresh.push(((performance.now() - t) * 1000) / n);
}
console.log(`\ntoken verification, first time (ES256 + select): median ${median(fresh).toFixed(1)} µs per call`);
const bearer = await perRequest('/animations/drivers', { authorization: `Bearer ${token}` });
console.log(`GET /animations/drivers (bearer): ${bearer.toFixed(1)} µs per request (${(bearer / open).toFixed(2)}x; remembered after the first)`);

await services.close();
rmSync(dir, { recursive: true, force: true });
