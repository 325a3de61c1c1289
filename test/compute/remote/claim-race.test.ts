/** Two API processes claiming from one database file never hand out the same task. */
import { afterAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/db/client.ts';
import { systemClock, randomId } from '../../../src/clock.ts';
import { createComputeTasks } from '../../../src/compute/remote/task-store.ts';
import { ROOT } from '../../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'mimic-claim-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function child(file: string, workerId: string) {
  const p = spawn(process.execPath, ['--import', 'tsx', 'test/compute/remote/claim-child.ts', file, workerId], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>((resolve) => p.stdout.on('data', (d: Buffer) => ((out += d), out.startsWith('ready\n') && resolve())));
  const ids = new Promise<string[]>((resolve, reject) =>
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.split('\n')[1]!) as string[]) : reject(new Error(`claimer exited ${code}`)))),
  );
  return { ready, ids, go: (at: number) => p.stdin.end(`go ${at}\n`) };
}

it('every task is claimed exactly once across processes', async () => {
  const file = join(dir, 'mimic.db');
  const store = openStore(file);
  const tasks = createComputeTasks(store, systemClock, randomId, { leaseMs: 60_000, maxAttempts: 3 });
  const created = new Set<string>();
  for (let i = 0; i < 600; i++) {
    const render = { sourcePath: '/x.png', driver: { kind: 'bank', category: 'fun', name: 'driver-01' }, face: null, resultFormat: 'mp4', mute: true, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'none' }, overlayPath: null } as const;
    created.add((await tasks.create({ jobId: `job_${i}`, request: render, outputPath: `/tmp/out-${i}.mp4` })).id);
  }
  const a = child(file, 'wkr_a');
  const b = child(file, 'wkr_b');
  await Promise.all([a.ready, b.ready]);
  const at = Date.now() + 300;
  a.go(at);
  b.go(at);
  const [gotA, gotB] = await Promise.all([a.ids, b.ids]);
  const all = [...gotA, ...gotB];
  expect(new Set(all).size).toBe(all.length);
  expect(new Set(all)).toEqual(created);
  // Each process saw its own claims in the table.
  const owners = store.sqlite.prepare(`SELECT worker_id, count(*) AS n FROM compute_tasks WHERE status = 'leased' AND attempts = 1 GROUP BY worker_id`).all();
  expect(owners).toEqual(expect.arrayContaining([{ worker_id: 'wkr_a', n: gotA.length }, { worker_id: 'wkr_b', n: gotB.length }].filter((o) => o.n > 0)));
  store.close();
});
