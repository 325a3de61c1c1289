/**
 * The health routes: /health as it always answered, /health/live while the process answers,
 * /health/ready while it serves and its named checks pass (the database, its migrations, and
 * whatever a module adds), else 503 naming the failing checks and never their errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { buildApp } from '../../src/server.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

describe('a serving process', () => {
  it('/health keeps its answer, /health/live answers, /health/ready runs the database checks', async () => {
    h = harness();
    expect(await h.call('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok', version: '0.1.0' } });
    expect(await h.call('GET', '/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await h.call('GET', '/health/ready')).toMatchObject({ status: 200, body: { status: 'ok', checks: { database: 'ok', migrations: 'ok' } } });
  });

  it('answers 503 with the failing check and its status, not its error; ready again when it passes', async () => {
    h = harness();
    let bucketUp = false;
    h.services.readiness.add('bucket', async () => {
      if (!bucketUp) throw new Error('bucket media at http://10.1.2.3:9000 refused: AccessDenied');
    });
    const down = await h.call('GET', '/health/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      kind: 'ServiceUnavailableError',
      description: 'not ready: bucket (failed)',
      details: { checks: { database: 'ok', migrations: 'ok', bucket: 'failed' } },
    });
    expect(JSON.stringify(down.body)).not.toMatch(/10\.1\.2\.3|AccessDenied/);
    // Liveness and the old answer do not run the checks: a process that answers is not restarted for its bucket.
    expect((await h.call('GET', '/health/live')).status).toBe(200);
    expect((await h.call('GET', '/health')).status).toBe(200);
    // The operator learns why from the log, once per change.
    await h.call('GET', '/health/ready');
    expect(h.logs.filter((l) => l.includes('"not ready"'))).toHaveLength(1);
    expect(h.logs.find((l) => l.includes('"not ready"'))).toContain('AccessDenied');
    bucketUp = true;
    expect((await h.call('GET', '/health/ready')).body).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', bucket: 'ok' } });
    expect(h.logs.some((l) => l.includes('"ready again"') && l.includes('bucket'))).toBe(true);
  });

  it('a database without this version\'s migrations is not ready', async () => {
    h = harness();
    const sqlite = sqliteOf(h.services.store).sqlite;
    const newest = sqlite.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() as number;
    // As if the newest migration of this version had not run (a database restored from before it).
    sqlite.prepare('UPDATE __drizzle_migrations SET created_at = ? WHERE created_at = ?').run(newest - 1, newest);
    expect(await h.call('GET', '/health/ready')).toMatchObject({ status: 503, body: { description: 'not ready: migrations (failed)', details: { checks: { database: 'ok', migrations: 'failed' } } } });
    sqlite.prepare('UPDATE __drizzle_migrations SET created_at = ? WHERE created_at = ?').run(newest, newest - 1);
    expect((await h.call('GET', '/health/ready')).status).toBe(200);
  });
});

describe('a process starting or shutting down', () => {
  it('answers 503 on /health and /health/ready (without running the checks), and 200 on /health/live', async () => {
    h = harness();
    let ran = 0;
    h.services.readiness.add('counted', async () => void ran++);
    for (const [phase, description] of [['starting', 'starting'], ['stopping', 'shutting down']] as const) {
      const app = buildApp(h.services, () => phase);
      expect(await json(await app.request('/health'))).toEqual({ status: 503, body: { kind: 'ServiceUnavailableError', description } });
      expect(await json(await app.request('/health/ready'))).toEqual({ status: 503, body: { kind: 'ServiceUnavailableError', description } });
      expect((await app.request('/health/live')).status).toBe(200);
    }
    expect(ran).toBe(0);
  });
});
