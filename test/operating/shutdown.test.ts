/**
 * A graceful shutdown of the real server on a loopback port: readiness turns 503 at once, the
 * listener stops accepting, a request in flight finishes, one that outlasts the grace period
 * has its connection cut, and a job still running is handed back to the queue (its attempt
 * not counted) for another process to take.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { connect, type Socket } from 'node:net';
import Database from 'better-sqlite3';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { sqliteOf } from '../helpers/stores.ts';
import type { ComputeBackend } from '../../src/compute/interface.ts';

vi.setConfig({ testTimeout: 180_000 });

const GRACE_MS = 3_000;
let svc: LiveService | undefined;
afterAll(async () => svc?.close());

async function until(what: string, check: () => Promise<boolean> | boolean, capMs = 60_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A POST whose body is only partly sent: a request in flight until `finish()`. */
function partialPost(port: number, key: string, tag: string): { socket: Socket; finish(): void; status: Promise<number | null> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(
    `POST /animations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nX-Test: ${tag}\r\n\r\n{`,
  );
  let received = '';
  socket.on('data', (d) => (received += d));
  const status = new Promise<number | null>((resolve) => {
    socket.on('data', () => {
      const m = /^HTTP\/1\.1 (\d+)/.exec(received);
      if (m && received.includes('\r\n\r\n')) resolve(Number(m[1]));
    });
    socket.on('close', () => resolve(null));
    socket.on('error', () => resolve(null));
  });
  return { socket, finish: () => socket.write('}'), status };
}

/** The fake backend, except that an animation's render runs until it is aborted (the presenters' previews still finish). */
function holdingAnimations(): ComputeBackend {
  const fake = createFakeBackend();
  return {
    name: 'holding',
    run: ((kind, req) => {
      if (kind !== 'animation.render') return fake.run(kind, req);
      const { signal } = req as { signal: AbortSignal };
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted'))));
    }) as ComputeBackend['run'],
    close: () => fake.close(),
  };
}

const refused = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health/live`, { headers: { connection: 'close' } }).then(
    () => false,
    () => true,
  );

describe('on shutdown', () => {
  it('readiness 503 at once, no new connections, requests in flight finish, a running job goes back to the queue', async () => {
    svc = await startLiveService({ env: { MIMIC_SHUTDOWN_GRACE_MS: String(GRACE_MS) }, options: { backend: holdingAnimations() } });
    const { running } = svc;
    const sqlite = sqliteOf(running.services.store).sqlite;
    const jobOf = (resourceId: string) => sqlite.prepare('SELECT status, attempts, lease_owner FROM jobs WHERE resource_id = ?').get(resourceId) as { status: string; attempts: number; lease_owner: string | null };

    // A render that will not end by itself, running under this process's lease.
    const render = await svc.api('POST', '/animations', {});
    expect(render.status, JSON.stringify(render.body)).toBe(201);
    await until('the render runs', () => jobOf(render.body.id)?.status === 'running');
    expect(jobOf(render.body.id).attempts).toBe(1);

    // Two requests in flight: one will finish its body, the other never will.
    const arrived = new Set<string>();
    running.server.on('request', (req) => arrived.add(String(req.headers['x-test'])));
    const finishing = partialPost(running.port, svc.key, 'finishing');
    const stalled = partialPost(running.port, svc.key, 'stalled');
    await until('both requests arrived', () => arrived.has('finishing') && arrived.has('stalled'));

    const started = Date.now();
    const stopping = running.shutdown();
    // At once: readiness answers 503 from here (test/http/health.test.ts checks the answers of each phase).
    expect(running.phase()).toBe('stopping');
    await until('the listener refuses new connections', () => refused(running.port));

    finishing.finish();
    expect(await finishing.status).toBe(201);
    // The stalled one is cut when the grace period ends.
    expect(await stalled.status).toBeNull();
    await stopping;
    expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS - 100);

    // Read after the service closed its database: the render was handed back, its attempt not counted.
    const file = new Database(running.services.config.databaseFile, { readonly: true });
    try {
      const job = file.prepare('SELECT status, attempts, lease_owner FROM jobs WHERE resource_id = ?').get(render.body.id);
      expect(job).toEqual({ status: 'queued', attempts: 0, lease_owner: null });
    } finally {
      file.close();
    }
  });
});
