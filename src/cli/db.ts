import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, valueOf, type Command, type CommandContext } from '../platform/command.ts';
import { databaseSettings } from '../config.ts';
import { openStoreToRead } from '../db/client.ts';
import { openPgDatabase } from '../db/pg/database.ts';
import { copySqliteToPostgres, CopyRefused } from '../db/copy/copy.ts';
import { copyAll } from '../media/copy.ts';
import { createLocalMediaStore, type MediaStore } from '../media/store.ts';
import { openMediaStore } from '../media/open.ts';

/**
 * MIMIC_DATA_DIR/media into the configured bucket (objects already there with the same size are
 * kept, so it runs again after an interruption), then checked: every local object is in the
 * bucket with its size. The counts, never a key or a byte.
 */
async function copyMedia(local: MediaStore, bucket: MediaStore): Promise<{ copied: number; skipped: number; bytes: number; objects: number; missing: number }> {
  const done = await copyAll(local, bucket);
  let objects = 0;
  let missing = 0;
  for await (const o of local.list()) {
    objects++;
    if ((await bucket.stat(o.owner, o.key))?.size !== o.size) missing++;
  }
  return { ...done, objects, missing };
}

/** Where a PostgreSQL URL points, without its user and password (what a report may print). */
export function displayUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function count(value: string | boolean | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${name} must be a whole number >= ${min}`);
  return n;
}

/** --to, `env:NAME`, or MIMIC_DATABASE_URL; with the pool settings of the MIMIC_DATABASE_* variables. */
function targetSettings(ctx: CommandContext, values: Record<string, string | boolean | undefined>) {
  const url = values.to !== undefined ? valueOf(values, 'to', process.env) : ctx.settings.database?.url;
  if (!url) throw new UsageError('--to is required when MIMIC_DATABASE_URL is not set');
  try {
    return databaseSettings({ ...ctx.settings.env, MIMIC_DATABASE_URL: url })!;
  } catch (err) {
    throw new UsageError((err as Error).message.replace('MIMIC_DATABASE_URL', '--to'));
  }
}

async function copy(ctx: CommandContext, values: Record<string, string | boolean | undefined>): Promise<number> {
  const from = resolve(typeof values.from === 'string' ? values.from : ctx.settings.databaseFile);
  if (!existsSync(from)) throw new UsageError(`no SQLite file at ${from}`);
  const settings = targetSettings(ctx, values);
  if (values.media === true && !ctx.config.s3) throw new UsageError('--media copies the media folder into the S3 bucket: set MIMIC_S3_BUCKET and the other MIMIC_S3_* settings (docs/deploy.md#media-on-s3)');
  const options = { batchRows: count(values['batch-size'], '--batch-size', 500, 1), sample: count(values.sample, '--sample', 50, 0), replace: values.replace === true };
  const source = openStoreToRead(from);
  const target = openPgDatabase(settings);
  try {
    const report = await copySqliteToPostgres(source, target, options);
    for (const t of report.tables) {
      ctx.out(JSON.stringify({ table: t.table, source_rows: t.sourceRows, target_rows: t.targetRows, sampled: t.sampled, mismatches: t.mismatches }));
    }
    const rows = report.tables.reduce((n, t) => n + t.sourceRows, 0);
    const media = report.committed && values.media === true ? await copyMedia(createLocalMediaStore(ctx.config.mediaDir), openMediaStore(ctx.config)) : null;
    ctx.out(JSON.stringify({ copied: report.committed, tables: report.tables.length, rows, from, to: displayUrl(settings.url), media: media ?? 'not copied' }));
    if (!report.committed) ctx.err('the copy did not match its source (see the tables with mismatches above): nothing was committed');
    if (media && media.missing > 0) ctx.err(`${media.missing} of ${media.objects} media objects are not in the bucket after the copy: run the command again`);
    return report.committed && (!media || media.missing === 0) ? 0 : 1;
  } catch (err) {
    if (!(err instanceof CopyRefused)) throw err;
    ctx.err(`refused: ${err.message}`);
    return 1;
  } finally {
    source.close();
    await target.close();
  }
}

/** The database commands: `db copy`. */
export const DB_COMMANDS: Record<string, Command> = {
  'db copy': {
    usage: 'db copy [--from FILE] [--to URL] [--replace] [--batch-size N] [--sample N] [--media]',
    help: [
      'Copies every table of a SQLite deployment into a PostgreSQL database (migrated first), in foreign-key order, streamed in batches inside one',
      'transaction, then checks it in the same transaction: row counts per table, and a sample of rows found by primary key with every column equal.',
      'It commits only when all agree; otherwise nothing is written (exit 1). Prints one JSON line per table {"table","source_rows","target_rows",',
      '"sampled","mismatches"} and a summary {"copied","tables","rows","from","to","media"}; values are never printed. Stop the service first:',
      'what it writes after the copy starts is not copied. The PostgreSQL deployment needs the same master key. With --media (and the MIMIC_S3_*',
      'settings) it then copies MIMIC_DATA_DIR/media into the bucket, keeping what is there already, and checks every object is there with its size.',
    ].join('\n'),
    options: {
      from: { type: 'string', value: 'FILE', description: 'the SQLite file to copy, at this version\'s schema (run migrate on it first); it is only read', default: 'MIMIC_DATA_DIR/mimic.db' },
      to: { type: 'string', value: 'URL', description: 'the PostgreSQL database, postgres://user:password@host:5432/db, or env:NAME to read it from a variable (out of ps and shell history)', default: 'MIMIC_DATABASE_URL' },
      replace: { type: 'boolean', description: 'deletes every row of the target\'s tables first (same transaction), e.g. to redo a rehearsal copy; without it a target with rows is refused', default: 'off' },
      'batch-size': { type: 'string', value: 'N', description: 'rows per INSERT statement, at least 1 (fewer when a table has many columns)', default: '500' },
      sample: { type: 'string', value: 'N', description: 'rows per table compared column by column after the copy, 0 for counts only', default: '50' },
      media: { type: 'boolean', description: 'after the tables, copies MIMIC_DATA_DIR/media into the S3 bucket of the MIMIC_S3_* settings and checks it', default: 'off' },
    },
    examples: ['db copy --to env:MIMIC_DATABASE_URL', 'db copy --from /var/lib/mimic/mimic.db --to postgres://mimic@db.internal:5432/mimic --sample 200'],
    run: copy,
  },
};
