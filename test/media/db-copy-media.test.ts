/**
 * `mimic db copy --media`: a SQLite deployment's media folder goes into the bucket with its
 * tables (Swift on loopback, PostgreSQL from the run's cluster), checked object by object, and
 * a second run copies nothing again.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/db/client.ts';
import { createLocalMediaStore } from '../../src/media/store.ts';
import { createS3MediaStore } from '../../src/media/s3-store.ts';
import { mimicAsync } from '../helpers/cli.ts';
import { banner } from '../helpers/postgres-setup.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

const swift = swiftOrSkip('test/media/db-copy-media.test.ts');
const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED: test/media/db-copy-media.test.ts needs the run\'s cluster.']));
const dir = mkdtempSync(join(tmpdir(), 'mimic-copy-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!swift || !admin)('mimic db copy --media', () => {
  it('copies the media folder into the bucket after the tables, checks every object, and a second run copies nothing', async () => {
    openStore(join(dir, 'mimic.db')).close();
    const local = createLocalMediaStore(join(dir, 'media'));
    await local.put('usr_a', 'animations/anm_1/result.mp4', Buffer.alloc(300_000, 7), 'video/mp4');
    await local.put('usr_b', 'images/img_1.png', Buffer.from('png'), 'image/png');
    const { env, settings } = await freshBucket(swift!);
    const database = await freshPostgres(admin!);
    try {
      const run = () => mimicAsync(['db', 'copy', '--to', database.url, '--media', '--replace'], { MIMIC_DATA_DIR: dir, ...env });
      const first = await run();
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.lines.at(-1)!).media).toMatchObject({ copied: 2, skipped: 0, objects: 2, missing: 0, bytes: 300_003 });
      const bucket = createS3MediaStore(settings, { cacheDir: join(dir, 'cache') });
      expect((await bucket.stat('usr_a', 'animations/anm_1/result.mp4'))?.size).toBe(300_000);
      expect((await bucket.stat('usr_b', 'images/img_1.png'))?.contentType).toBe('image/png');
      const again = await run();
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.lines.at(-1)!).media).toMatchObject({ copied: 0, skipped: 2, missing: 0 });
      // The bucket's secret is never printed.
      expect(first.stdout + first.stderr + again.stdout + again.stderr).not.toContain(env.MIMIC_S3_SECRET_ACCESS_KEY);
    } finally {
      await database.drop();
    }
  }, 240_000);

  it('refuses --media without a bucket', async () => {
    const res = await mimicAsync(['db', 'copy', '--to', 'postgres://nobody@127.0.0.1:1/none', '--media'], { MIMIC_DATA_DIR: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--media .*MIMIC_S3_BUCKET/);
  });
});
