/**
 * The whole service on PostgreSQL, as an operator runs it: two `serve` processes (the command
 * `npm start` runs) on one fresh PostgreSQL database with MIMIC_DATABASE_URL and one shared
 * media folder, the CLI on the same database, real renders and a signed webhook. What one
 * process writes the other reads; a key the CLI revokes is refused by both; a render whose
 * process is SIGKILLed is finished by the other once its lease runs out.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ARGS, ROOT, mimicAsync } from '../helpers/cli.ts';
import { freePort } from '../helpers/remote.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { banner } from '../helpers/postgres-setup.ts';

const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED: test/db/service-on-postgres.test.ts needs the run\'s cluster.']));

interface Proc {
  child: ChildProcess;
  base: string;
  output: string;
  closed: Promise<number | null>;
}

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-pg-e2e-'));
let database: Awaited<ReturnType<typeof freshPostgres>> | undefined;
let env: Record<string, string> = {};
let receiver: TestServer;
const procs: Proc[] = [];
let key = '';

async function serve(): Promise<Proc> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...NODE_ARGS, 'serve'], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, base, output: '', closed: new Promise((resolve) => child.once('close', resolve)) };
  child.stdout!.on('data', (d: Buffer) => (p.output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (p.output += d.toString()));
  procs.push(p);
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health/ready`)).status === 200) return p;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not become ready:\n${p.output}`);
}

const api = async (p: Proc, method: string, path: string, body?: unknown, auth = key) => {
  const res = await fetch(`${p.base}${path}`, {
    method,
    headers: { authorization: `Basic ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

async function settled(p: Proc, id: string): Promise<any> {
  for (let i = 0; ; i++) {
    const rec = (await api(p, 'GET', `/animations/${id}`)).body;
    if (rec.status === 'done' || rec.status === 'error') return rec;
    if (i > 2400) throw new Error(`not settled: ${JSON.stringify(rec)}\n${procs.map((x) => x.output.slice(-2000)).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  if (!admin) return;
  database = await freshPostgres(admin);
  receiver = await startTlsServer();
  receiver.handle((_req, res) => void res.writeHead(204).end());
  env = {
    MIMIC_DATA_DIR: dataDir,
    MIMIC_DATABASE_URL: database.url,
    MIMIC_PUBLIC_URL: 'http://127.0.0.1:1',
    MIMIC_EGRESS_ALLOW: 'localhost',
    MIMIC_MASTER_KEY: 'ab'.repeat(32),
    NODE_EXTRA_CA_CERTS: join(dataDir, 'ca.pem'),
    MIMIC_JOB_LEASE_MS: '3000',
    MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '200,400',
    MIMIC_RATE_LIMIT: '100000',
  };
  (await import('node:fs')).writeFileSync(env.NODE_EXTRA_CA_CERTS!, receiver.ca);
  // Both start at once: one migrates, the other waits on the lock and finds it done.
  await Promise.all([serve(), serve()]);
  const created = await mimicAsync(['users', 'create', '--name', 'pg', '--credits', '20'], env);
  expect(created.code, created.stderr).toBe(0);
  key = JSON.parse(created.lines[0]!).api_key;
}, 300_000);

afterAll(async () => {
  for (const p of procs) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.closed));
  await receiver?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!admin)('the service on PostgreSQL, two processes', () => {
  it('an animation created on one process renders, is read on the other, and its webhook is sent once', async () => {
    const [a, b] = procs as [Proc, Proc];
    const made = await api(a, 'POST', '/animations', { driver_url: 'bank://nostalgia/driver-03', webhook: `https://localhost:${receiver.port}/hook` });
    expect(made.status).toBe(201);
    const rec = await settled(b, made.body.id);
    expect(rec.status).toBe('done');
    expect(rec.metadata.num_frames).toBeGreaterThan(0);
    for (let i = 0; i < 300 && !receiver.received.some((r) => r.path === '/hook'); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((r) => r.path === '/hook')).toHaveLength(1);
  }, 300_000);

  it('a key the CLI revokes is refused by both processes', async () => {
    const users = await mimicAsync(['users', 'list'], env);
    expect(users.code, users.stderr).toBe(0);
    const extra = await mimicAsync(['keys', 'create', '--user', (JSON.parse(users.lines[0]!) as { id: string }).id], env);
    expect(extra.code, extra.stderr).toBe(0);
    const second = JSON.parse(extra.lines[0]!) as { id: string; api_key: string };
    for (const p of procs) expect((await api(p, 'GET', '/animations', undefined, second.api_key)).status).toBe(200);
    const revoked = await mimicAsync(['keys', 'revoke', second.id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const p of procs) {
      let status = 200;
      for (let i = 0; i < 100 && status === 200; i++) {
        status = (await api(p, 'GET', '/animations', undefined, second.api_key)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(401);
    }
  }, 300_000);

  it('a render whose process is SIGKILLed is finished by the other process', async () => {
    const [a, b] = procs as [Proc, Proc];
    const ids: string[] = [];
    for (const d of ['dance/driver-02', 'fun/driver-04', 'subtle/driver-07']) ids.push((await api(a, 'POST', '/animations', { driver_url: `bank://${d}` })).body.id);
    a.child.kill('SIGKILL');
    await a.closed;
    for (const id of ids) expect((await settled(b, id)).status).toBe('done');
  }, 300_000);
});
