/**
 * Migration 0004_resources moves every animation of the old `animations` table into
 * `resources` without changing what GET /animations/{id} shows, and the moved rows keep
 * their lifecycle: an unfinished one is still refunded on delete, a finished one is not.
 */
import { afterEach, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { harness, type Harness } from '../helpers/harness.ts';
import { createKey } from '../../src/users/accounts.ts';
import { userDeps } from '../helpers/harness.ts';
import { sqliteOf } from '../helpers/stores.ts';

const MIGRATIONS = resolve(import.meta.dirname, '../../drizzle');
let h: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The migrations up to (and without) 0004_resources, applied to `file`: the schema of the previous release. */
function migrateBeforeResources(file: string): void {
  const folder = mkdtempSync(join(tmpdir(), 'mimic-migrations-'));
  dirs.push(folder);
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === '0004_resources');
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalFile, JSON.stringify(journal));
  const sqlite = new Database(file);
  migrate(drizzle(sqlite), { migrationsFolder: folder });
  sqlite.close();
}

it('moves existing animations into resources: same records, webhook URL in its column, refund only for unfinished ones', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-old-'));
  dirs.push(dataDir);
  const file = join(dataDir, 'mimic.db');
  migrateBeforeResources(file);

  // The previous release's rows: one done (with a webhook), one mid-render.
  const db = new Database(file);
  db.prepare(`INSERT INTO users (id, name, credits, permissions, created_at) VALUES ('usr_old', 'old', 5, '[]', 1)`).run();
  const insert = db.prepare(
    `INSERT INTO animations (id, user_id, status, request, driver_resolved, source_key, result_key, result_external_url, metadata, face_ids, error, progress_done, progress_total, created_at, started_at, modified_at)
     VALUES (?, 'usr_old', ?, ?, ?, ?, ?, NULL, ?, ?, NULL, ?, ?, ?, ?, ?)`,
  );
  const request = JSON.stringify({ driver_url: 'bank://fun/', webhook: 'https://example.com/hook', user_data: 'kept', config: { mute: false } });
  const metadata = JSON.stringify({ num_frames: 10, video_fps: 25, resolution: ['64', '64'] });
  insert.run('anm_done', 'done', request, 'bank://fun/driver-02', 'samples/sample-source.png', 'animations/anm_done/result.mp4', metadata, '[0]', null, null, 1_000, 1_500, 2_000);
  insert.run('anm_wait', 'started', '{}', 'bank://nostalgia/driver-01', null, null, null, null, 3, 10, 3_000, 3_500, 3_600);
  db.close();

  h = harness({ MIMIC_DATA_DIR: dataDir });
  const sqlite = sqliteOf(h.services.store).sqlite;
  const row = (id: string) => sqlite.prepare('SELECT * FROM resources WHERE id = ?').get(id) as Record<string, any>;
  expect(row('anm_done')).toMatchObject({ kind: 'animation', status: 'done', webhook_url: 'https://example.com/hook', credits: 1, finished_at: 2_000 });
  expect(row('anm_wait')).toMatchObject({ kind: 'animation', status: 'started', webhook_url: null, credits: 1, finished_at: null, progress_done: 3 });
  expect(JSON.parse(row('anm_done').details)).toEqual({ driverResolved: 'bank://fun/driver-02', sourceKey: 'samples/sample-source.png' });
  expect(sqlite.prepare(`SELECT name FROM sqlite_master WHERE name = 'animations'`).get()).toBeUndefined();

  // What the API shows of them is what the previous release showed.
  const key = (await createKey(userDeps(h.services), 'usr_old'))!.apiKey;
  const rec = (await h.call('GET', '/animations/anm_done', { key })).body;
  expect(rec).toMatchObject({
    id: 'anm_done',
    status: 'done',
    user_data: 'kept',
    webhook: 'https://example.com/hook',
    driver_url: 'bank://fun/',
    face_ids: [0],
    metadata: { driver_url: 'bank://fun/driver-02', num_frames: 10, video_fps: 25, resolution: ['64', '64'] },
    config: { mute: false, result_format: '.mp4' },
    created_at: new Date(1_000).toISOString(),
    started_at: new Date(1_500).toISOString(),
    modified_at: new Date(2_000).toISOString(),
  });
  expect(rec.result_url).toMatch(/\/media\/usr_old\/animations\/anm_done\/result\.mp4\?expires=/);
  expect((await h.call('GET', '/animations/anm_wait', { key })).body).toMatchObject({ status: 'started', progress: { frames_done: 3, frames_total: 10 } });
  expect((await h.call('GET', '/animations', { key })).body.animations.map((a: { id: string }) => a.id)).toEqual(['anm_wait', 'anm_done']);

  const credits = () => (sqlite.prepare(`SELECT credits FROM users WHERE id = 'usr_old'`).get() as { credits: number }).credits;
  await h.call('DELETE', '/animations/anm_wait', { key });
  expect(credits()).toBe(6);
  await h.call('DELETE', '/animations/anm_done', { key });
  expect(credits()).toBe(6);
});
