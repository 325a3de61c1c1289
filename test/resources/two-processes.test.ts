/**
 * Two processes on one database race to finish, fail and delete the same animations: each
 * record is ended at most once (one webhook each) and refunded at most once, so the user's
 * credits add up exactly. Finishing, failing and refunding are conditional updates; the
 * outcome does not depend on how the two processes interleave.
 */
import { afterAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/db/client.ts';
import { createAllStores } from '../helpers/stores.ts';
import { systemClock } from '../../src/clock.ts';
import { animationLifecycle } from '../../src/animations/kind.ts';
import { ROOT } from '../helpers/cli.ts';

const COUNT = 300;
const EXTRA = 7;
const dir = mkdtempSync(join(tmpdir(), 'mimic-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Won {
  done: string[];
  failed: string[];
  removed: { id: string; unfinished: boolean }[];
}

function child(file: string, seed: number): { ready: Promise<void>; result: Promise<Won> } {
  const p = spawn(process.execPath, ['--import', 'tsx', 'test/resources/race-child.ts', file, String(seed), String(COUNT)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '', err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = new Promise<void>((resolve) =>
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready\n')) resolve();
    }),
  );
  const result = new Promise<Won>((resolve, reject) =>
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.split('\n')[1]!) as Won) : reject(new Error(`race child exited ${code}: ${err}`)))),
  );
  return { ready, result };
}

it('ends and refunds each record at most once when two processes race over it', async () => {
  const file = join(dir, 'mimic.db');
  const handle = openStore(file);
  const sqlite = handle.sqlite;
  sqlite.prepare(`INSERT INTO users (id, credits, permissions, created_at) VALUES ('usr_race', ?, '[]', 1)`).run(COUNT + EXTRA);
  const life = animationLifecycle(createAllStores(handle).resources, systemClock, { signedUrl: () => '' });
  for (let i = 0; i < COUNT; i++) {
    const row = await life.create({ id: `anm_race${i}`, userId: 'usr_race', request: {}, details: {}, webhookUrl: 'https://example.com/hook', maxAttempts: 1 });
    expect(row).not.toBeNull();
  }
  const credits = () => (sqlite.prepare(`SELECT credits FROM users WHERE id = 'usr_race'`).get() as { credits: number }).credits;
  expect(credits()).toBe(EXTRA);

  const racers = [child(file, 1), child(file, 2)];
  await Promise.all(racers.map((r) => r.ready));
  writeFileSync(`${file}.go`, '');
  const [a, b] = await Promise.all(racers.map((r) => r.result));

  const ended = [...a!.done, ...b!.done, ...a!.failed, ...b!.failed];
  const removed = [...a!.removed, ...b!.removed];
  // Each record ended at most once and was deleted at most once, whoever tried.
  expect(new Set(ended).size).toBe(ended.length);
  expect(new Set(removed.map((r) => r.id)).size).toBe(removed.length);
  // A record deleted before it ended was never ended afterwards.
  const deletedUnfinished = new Set(removed.filter((r) => r.unfinished).map((r) => r.id));
  expect(ended.filter((id) => deletedUnfinished.has(id))).toEqual([]);

  // Refunds: one per failure and one per delete of an unfinished record, and no other.
  const refunds = a!.failed.length + b!.failed.length + deletedUnfinished.size;
  expect(credits()).toBe(EXTRA + refunds);
  // One webhook per ended record.
  const hooks = sqlite.prepare(`SELECT resource_id AS id, event FROM webhook_messages`).all() as { id: string; event: string }[];
  expect(hooks.map((h) => h.id).sort()).toEqual([...ended].sort());
  const failed = new Set([...a!.failed, ...b!.failed]);
  for (const h of hooks) expect(h.event).toBe(failed.has(h.id) ? 'animation.error' : 'animation.done');
  // Every record met one of the three fates, and the table agrees with what the racers saw.
  expect(new Set([...ended, ...deletedUnfinished]).size).toBe(COUNT);
  const left = sqlite.prepare(`SELECT id, status FROM resources`).all() as { id: string; status: string }[];
  for (const r of left) expect(r.status).toBe(failed.has(r.id) ? 'error' : 'done');
  expect(left.length + removed.length).toBe(COUNT);
  handle.close();
}, 120_000);
