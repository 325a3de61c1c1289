import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteFixture, type RemoteFixture } from './fixture.ts';
import { mimic } from '../../helpers/cli.ts';
import { harness } from '../../helpers/harness.ts';
import { sqliteOf } from '../../helpers/stores.ts';

let f: RemoteFixture;
beforeEach(async () => {
  f = await remoteFixture();
});
afterEach(async () => {
  await f.close();
});

describe('worker tokens', () => {
  it('refuses /compute/v1 without a token, with a wrong one, and with an API key', async () => {
    const { key } = f.h.user();
    const attempts: [string, Record<string, string>][] = [
      ['none', {}],
      ['malformed', { authorization: 'Bearer nonsense' }],
      ['unknown', { authorization: `Bearer mwk_${'A'.repeat(43)}` }],
      ['api key as bearer', { authorization: `Bearer ${key}` }],
      ['api key as basic', { authorization: `Basic ${key}` }],
      ['token as basic', { authorization: `Basic ${f.token}` }],
    ];
    for (const [what, headers] of attempts) {
      const res = await f.call('POST', '/compute/v1/claim', { token: null, headers, body: { wait_ms: 0 } });
      expect(res.status, what).toBe(401);
      expect(res.body.kind, what).toBe('AuthorizationError');
      expect(res.headers.get('www-authenticate'), what).toMatch(/^Bearer/);
    }
    for (const path of ['/compute/v1/tasks/ctk_x/heartbeat', '/compute/v1/tasks/ctk_x/complete', '/compute/v1/tasks/ctk_x/fail']) {
      expect((await f.call('POST', path, { token: null, body: {} })).status, path).toBe(401);
    }
    expect((await f.claim({ wait_ms: 0 })).status).toBe(204);
  });

  it('a worker token is not an API key', async () => {
    for (const authorization of [`Basic ${f.token}`, `Bearer ${f.token}`]) {
      const res = await f.call('GET', '/animations', { token: null, headers: { authorization } });
      expect(res.status).toBe(401);
    }
  });

  it('a revoked token gets 401 at once; its task goes to another worker when the lease runs out', async () => {
    const other = await f.h.services.compute.workers.add('other');
    f.render();
    const t = (await f.claim()).body;
    expect(await f.h.services.compute.workers.revoke(f.workerId)).toBe(true);
    const beat = await f.call('POST', `/compute/v1/tasks/${t.task_id}/heartbeat`, { body: { lease: t.lease } });
    expect(beat.status).toBe(401);
    expect((await f.claim()).status).toBe(401);
    expect((await f.claim({ wait_ms: 0 }, other.token)).status).toBe(204);
    f.clock.advance(30_000);
    const again = await f.claim({ wait_ms: 0 }, other.token);
    expect(again.body).toMatchObject({ task_id: t.task_id, attempt: 2 });
    // Another worker's token cannot act on a lease it does not hold, even knowing it.
    const stolen = await f.call('POST', `/compute/v1/tasks/${t.task_id}/heartbeat`, { token: (await f.h.services.compute.workers.add('third')).token, body: { lease: again.body.lease } });
    expect(stolen.status).toBe(409);
    expect(stolen.body.details).toEqual({ reason: 'lease_lost' });
  });

  it('lists workers with their last call, never a token or its hash', async () => {
    await f.claim();
    const list = await f.h.services.compute.workers.list();
    expect(list).toEqual([{ id: f.workerId, name: 'test-worker', created_at: expect.any(String), last_seen_at: expect.any(String), revoked_at: null }]);
    const hash = (sqliteOf(f.h.services.store).sqlite.prepare('SELECT token_hash FROM compute_workers').get() as { token_hash: string }).token_hash;
    expect(JSON.stringify(list)).not.toContain(hash);
    expect(hash).not.toContain(f.token);
  });
});

describe('workers CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-workers-cli-'));
  const env = { MIMIC_DATA_DIR: dataDir };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('adds (token shown once), lists and revokes worker tokens that a server on the same data directory honours', async () => {
    const added = mimic(['workers', 'add', '--name', 'gpu-1'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.lines).toHaveLength(1);
    const worker = JSON.parse(added.lines[0]!);
    expect(Object.keys(worker).sort()).toEqual(['id', 'name', 'token']);
    expect(worker.token).toMatch(/^mwk_[A-Za-z0-9_-]{43}$/);

    const listed = mimic(['workers', 'list'], env);
    expect(listed.lines.map((l) => JSON.parse(l))).toEqual([
      { id: worker.id, name: 'gpu-1', created_at: expect.any(String), last_seen_at: null, revoked_at: null },
    ]);
    expect(listed.stdout).not.toContain(worker.token);

    const h = harness({ MIMIC_DATA_DIR: dataDir, MIMIC_COMPUTE_BACKEND: 'remote' });
    try {
      const claim = () => h.call('POST', '/compute/v1/claim', { headers: { authorization: `Bearer ${worker.token}` }, body: { wait_ms: 0 } });
      expect((await claim()).status).toBe(204);
      expect(mimic(['workers', 'revoke', worker.id], env).code).toBe(0);
      expect((await claim()).status).toBe(401);
    } finally {
      await h.services.close();
    }
    expect(mimic(['workers', 'revoke', worker.id], env).code).toBe(1);
    expect(mimic(['workers', 'add'], env).code).toBe(2);
  }, 240_000); // five CLI processes and a service: 60 s on a machine at load 32

  it('worker refuses a plain-http server that is not loopback, and a missing token variable', () => {
    const http = mimic(['worker', '--server', 'http://mimic.example.com', '--token', 'x'], {});
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/https/);
    const missing = mimic(['worker', '--server', 'https://mimic.example.com', '--token', 'env:MIMIC_TEST_NO_SUCH_VAR'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/MIMIC_TEST_NO_SUCH_VAR/);
  });
});
