/**
 * Remote compute end to end: a `serve` process that renders nothing itself
 * (MIMIC_COMPUTE_BACKEND=remote), a worker token from the CLI, and `mimic worker` processes
 * running the CPU renderer over the worker protocol on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { videoFacts } from '../helpers/video.ts';
import {
  killAll,
  median,
  noneRunning,
  shortBankDrivers,
  spawnWorker,
  startRemoteService,
  waitForAnimations,
  waitUntil,
  type Proc,
  type RemoteService,
} from '../helpers/remote.ts';

const LEASE_MS = 3000;
let service: RemoteService;
let token = '';
const workers: Proc[] = [];

const diagnostics = () => [service.server.output().slice(-3000), ...workers.map((w) => w.output().slice(-2000))].join('\n---\n');

beforeAll(async () => {
  service = await startRemoteService({ leaseMs: LEASE_MS });
  token = service.addWorker('e2e').token;
}, 120_000);

afterAll(async () => {
  await killAll(workers);
  await service?.close();
});

describe('remote workers', () => {
  it('two worker processes render twenty animations, each exactly once', async () => {
    workers.push(spawnWorker(service, token, 'w1'), spawnWorker(service, token, 'w2'));
    const drivers = shortBankDrivers(20);
    const ids: string[] = [];
    for (const [i, driver_url] of drivers.entries()) {
      const res = await service.api('POST', '/animations', { driver_url, user_data: `remote-${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const records = await waitForAnimations(service, ids, { timeoutMs: 240_000, diagnostics, giveUpIf: noneRunning(workers) });
    for (const rec of records) expect(rec, JSON.stringify(rec.error)).toMatchObject({ status: 'done' });

    // Exactly once: one task per animation, done on its first attempt. (The service also
    // queues the built-in presenters' talking previews at start: clip tasks the workers take too.)
    const tasks = service.tasks().filter((t) => t.kind === 'animation.render');
    expect(tasks).toHaveLength(20);
    expect(new Set(tasks.map((t) => t.animation_id))).toEqual(new Set(ids));
    for (const t of tasks) expect(t).toMatchObject({ status: 'done', attempts: 1 });
    expect(new Set(tasks.map((t) => t.worker_name))).toEqual(new Set(['w1', 'w2']));

    // Every result is a real, clean video of what the worker reported.
    for (const [i, rec] of records.entries()) {
      const file = join(service.dataDir, `result-${i}.mp4`);
      const res = await fetch(rec.result_url);
      expect(res.status).toBe(200);
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const v = videoFacts(file);
      expect(v).toMatchObject({ brand: 'isom', decodeErrors: '', hasVideo: true, frames: rec.metadata.num_frames });
      expect([String(v.width), String(v.height)]).toEqual(rec.metadata.resolution);
    }

    // For the record (never asserted): where the time went, from the task rows.
    const protocol = tasks.map((t) => t.finished_at! - t.claimed_at! - t.render_ms!);
    const perWorker = (n: string) => tasks.filter((t) => t.worker_name === n).length;
    console.info(
      `remote e2e: w1 ${perWorker('w1')} tasks, w2 ${perWorker('w2')} tasks; per task median render ${median(tasks.map((t) => t.render_ms!))} ms, ` +
        `protocol (claim to complete, minus render) ${median(protocol)} ms`,
    );

    // Graceful stop: both workers exit 0 on SIGTERM.
    for (const w of workers) w.proc.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    expect(workers.map((w) => w.output()).join('\n')).not.toContain(token);
  }, 300_000);

  it('a worker killed mid-job: its lease runs out and the job finishes on another worker, attempt 2', async () => {
    const doomed = spawnWorker(service, token, 'doomed');
    workers.push(doomed);
    const longest = shortBankDrivers(1000).at(-1)!;
    const created = await service.api('POST', '/animations', { driver_url: longest });
    const id = created.body.id as string;
    const held = await waitUntil(() => service.tasks().find((t) => t.animation_id === id && t.status === 'leased'), 'the doomed worker to hold the task');
    expect(held.worker_name).toBe('doomed');
    // The other worker is up and polling before the doomed one dies mid-job.
    const heir = spawnWorker(service, token, 'heir');
    workers.push(heir);
    await waitUntil(() => (heir.output().includes('"msg":"worker started"') ? true : undefined), 'the other worker to start');
    doomed.proc.kill('SIGKILL');
    await doomed.exited;

    const [rec] = await waitForAnimations(service, [id], { timeoutMs: 120_000, diagnostics, giveUpIf: noneRunning([heir], 'the heir exited') });
    expect(rec).toMatchObject({ status: 'done' });
    const tasks = service.tasks().filter((t) => t.animation_id === id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ id: held.id, status: 'done', attempts: 2, worker_name: 'heir' });
    const file = join(service.dataDir, 'result-reclaimed.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(rec.result_url)).arrayBuffer()));
    expect(videoFacts(file)).toMatchObject({ brand: 'isom', decodeErrors: '', frames: rec.metadata.num_frames });
    // The worker's log line is written asynchronously and may trail the record.
    await waitUntil(() => (/"msg":"task done".*"attempt":2/.test(heir.output()) ? true : undefined), 'the heir to log the task');
  }, 180_000);
});
