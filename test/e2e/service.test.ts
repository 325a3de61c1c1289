/**
 * The whole service as a user meets it: `npm start`'s process on a fresh data directory,
 * the CLI on the same directory, curl-like HTTP calls, a real render, a signed webhook to an
 * HTTPS receiver trusted through NODE_EXTRA_CA_CERTS, SIGKILL mid-render, SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { NODE_ARGS, ROOT, mimic } from '../helpers/cli.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { meanDiff, rgbFrame, videoFacts } from '../helpers/video.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'mimic-e2e-'));
let port = 0;
let base = '';
let receiver: TestServer;
let server: ChildProcess | undefined;
let output = '';
let env: Record<string, string> = {};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function startService(): Promise<void> {
  server = spawn(process.execPath, [...NODE_ARGS, 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const started = server;
  started.once('close', () => closed.add(started));
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/health`)).status === 200) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service did not become ready:\n${output}`);
}

const closed = new WeakSet<ChildProcess>();

/** Resolves once the process has exited and its stdout and stderr are fully read. */
function exited(p: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (closed.has(p) ? resolve(p.exitCode) : p.once('close', (code) => resolve(code))));
}

let key = '';
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Basic ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

async function waitFor(id: string, pred: (rec: any) => boolean, timeoutMs = 120_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rec = (await api('GET', `/animations/${id}`)).body;
    if (pred(rec)) return rec;
    if (Date.now() > until) throw new Error(`timed out; last record ${JSON.stringify(rec)}\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

beforeAll(async () => {
  receiver = await startTlsServer();
  const caFile = join(dataDir, 'test-ca.pem');
  writeFileSync(caFile, receiver.ca);
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    MIMIC_DATA_DIR: dataDir,
    MIMIC_PUBLIC_URL: base,
    MIMIC_EGRESS_ALLOW: 'localhost',
    NODE_EXTRA_CA_CERTS: caFile,
    MIMIC_JOB_LEASE_MS: '3000',
    MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '200,400',
  };
  await startService();
  key = JSON.parse(mimic(['users', 'create', '--name', 'e2e', '--credits', '10'], env).lines[0]!).api_key;
}, 120_000);

afterAll(async () => {
  server?.kill('SIGKILL');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the service end to end', () => {
  it('renders an animation from an https photo, signs the webhook, and the face moves', async () => {
    const photo = readFileSync(join(ROOT, 'assets/sample-source.png'));
    receiver.handle((req, res) => {
      if (req.method === 'GET' && req.path === '/photos/face.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
      res.writeHead(204).end();
    });
    const created = await api('POST', '/animations', {
      source_url: `https://localhost:${receiver.port}/photos/face.png`,
      driver_url: 'bank://nostalgia/driver-03',
      webhook: `https://localhost:${receiver.port}/hook`,
      user_data: 'e2e-1',
    });
    expect(created.status).toBe(201);
    const rec = await waitFor(created.body.id, (r) => r.status === 'done' || r.status === 'error');
    expect(rec.error).toBeUndefined();
    expect(rec.status).toBe('done');
    expect(rec.metadata.driver_url).toBe('bank://nostalgia/driver-03');
    expect(rec.metadata.faces.length).toBeGreaterThan(0);

    // The video: a real H.264 mp4 whose face region changes from frame to frame.
    const file = join(dataDir, 'result.mp4');
    const dl = await fetch(rec.result_url);
    expect(dl.status).toBe(200);
    writeFileSync(file, Buffer.from(await dl.arrayBuffer()));
    const v = videoFacts(file);
    expect(v.brand).toBe('isom');
    expect(v.decodeErrors).toBe('');
    expect(v.hasVideo).toBe(true);
    expect(v.hasAudio).toBe(false);
    expect(v.frames).toBe(rec.metadata.num_frames);
    expect([String(v.width), String(v.height)]).toEqual(rec.metadata.resolution);
    const f0 = rgbFrame(file, 0, v.width, v.height);
    const fMid = rgbFrame(file, Math.floor(v.frames / 2), v.width, v.height);
    const center = { x: Math.floor(v.width * 0.3), y: Math.floor(v.height * 0.3), w: Math.floor(v.width * 0.4), h: Math.floor(v.height * 0.4) };
    expect(meanDiff(f0, fMid, v.width, center)).toBeGreaterThan(1);

    // The webhook: Standard Webhooks signature with the user's secret, body = the record.
    for (let i = 0; i < 100 && !receiver.received.some((r) => r.path === '/hook'); i++) await new Promise((r) => setTimeout(r, 100));
    const hook = receiver.received.find((r) => r.path === '/hook')!;
    expect(hook).toBeDefined();
    const { secret } = (await api('GET', '/webhooks/secret')).body;
    const payload = new Webhook(secret).verify(hook.body.toString(), hook.headers as Record<string, string>) as any;
    expect(payload).toMatchObject({ id: rec.id, status: 'done', user_data: 'e2e-1', result_url: expect.any(String) });
  }, 240_000); // a real service rendering on a loaded machine

  it('survives SIGKILL mid-render: the restarted service finishes every animation', async () => {
    // Rendering is fast, so queue several: one of them is surely mid-render (the worker runs
    // MIMIC_WORKER_CONCURRENCY jobs at once, so the dead process may hold more than one).
    const ids: string[] = [];
    for (const d of ['dance/driver-02', 'fun/driver-04', 'subtle/driver-07']) ids.push((await api('POST', '/animations', { driver_url: `bank://${d}` })).body.id);
    let caught = '';
    for (let i = 0; i < 1000 && !caught; i++) {
      for (const id of ids) {
        const r = (await api('GET', `/animations/${id}`)).body;
        if (r.status === 'started' && r.progress?.frames_done > 0) caught = id;
      }
    }
    expect(caught).not.toBe('');
    const killed = server!;
    killed.kill('SIGKILL');
    await exited(killed);
    output = '';
    await startService();
    expect(server!.pid).not.toBe(killed.pid);
    // The new process sees that the job's owner is dead and takes it over at once. Log lines
    // are written asynchronously, so the line may reach the pipe after /health answers.
    const released = /"msg":"released jobs of dead processes","count":[1-9]\d*/;
    for (let i = 0; i < 600 && !released.test(output); i++) await new Promise((r) => setTimeout(r, 100));
    expect(output).toMatch(released);
    for (const id of ids) {
      const rec = await waitFor(id, (r) => r.status === 'done' || r.status === 'error');
      expect(rec.status).toBe('done');
      expect((await fetch(rec.result_url)).status).toBe(200);
    }
  }, 240_000); // a real service rendering on a loaded machine

  it('shuts down gracefully on SIGTERM', async () => {
    server!.kill('SIGTERM');
    const code = await exited(server!);
    expect(code, output.slice(-2000)).toBe(0);
    expect(output).toMatch(/"msg":"shutting down"/);
    expect(output).not.toContain(key);
  }, 240_000); // a real service rendering on a loaded machine
});
