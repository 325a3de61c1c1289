/** A job waiting on a remote worker holds no runner slot (issue 8, 3.3). */
import { afterEach, expect, it } from 'vitest';
import { remoteFixture, type RemoteFixture } from './fixture.ts';
import { sqliteOf } from '../../helpers/stores.ts';

let f: RemoteFixture;
afterEach(async () => {
  await f.close();
});

it('with one runner slot, two remote animations both reach workers at once, and both finish', async () => {
  f = await remoteFixture({ MIMIC_WORKER_CONCURRENCY: '1' }, { backend: undefined });
  expect(f.h.config.worker.concurrency).toBe(1);
  f.h.services.worker.start();
  const { key } = f.h.user();
  const ids: string[] = [];
  for (const driver of ['bank://fun/driver-01', 'bank://fun/driver-02']) {
    const created = await f.h.call('POST', '/animations', { key, body: { driver_url: driver } });
    expect(created.status).toBe(201);
    ids.push(created.body.id);
  }
  // Neither job holds the only slot while its task waits: both tasks are handed out before either ends.
  const first = (await f.claim({ wait_ms: 20_000 })).body;
  const second = (await f.claim({ wait_ms: 20_000 })).body;
  expect(first.task_id).toMatch(/^ctk_/);
  expect(second.task_id).toMatch(/^ctk_/);
  expect(second.task_id).not.toBe(first.task_id);
  const jobs = () => sqliteOf(f.h.services.store).sqlite.prepare(`SELECT status, lease_owner, waiting_on FROM jobs ORDER BY created_at`).all() as any[];
  await expect.poll(() => jobs().map((j) => j.status)).toEqual(['waiting', 'waiting']);
  expect(jobs().every((j) => j.lease_owner === null && j.waiting_on?.startsWith('ctk_'))).toBe(true);

  // Progress reaches the record while the job is parked; completions wake the jobs, which deliver.
  expect((await f.call('POST', `/compute/v1/tasks/${second.task_id}/heartbeat`, { body: { lease: second.lease, progress: { done: 3, total: 125 } } })).status).toBe(200);
  const view = async (id: string) => (await f.h.call('GET', `/animations/${id}`, { key })).body;
  const secondId = ids[first.render.driver.name === 'driver-01' ? 1 : 0]!;
  await expect.poll(async () => (await view(secondId)).progress, { timeout: 10_000 }).toEqual({ frames_done: 3, frames_total: 125 });
  expect((await f.finish(second)).status).toBe(200);
  expect((await f.finish(first)).status).toBe(200);
  for (const id of ids) await expect.poll(async () => (await view(id)).status, { timeout: 10_000 }).toBe('done');
  // The job completes just after its delivery commits the record.
  await expect.poll(() => jobs().map((j) => j.status)).toEqual(['done', 'done']);
});
