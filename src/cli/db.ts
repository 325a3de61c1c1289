import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, valueOf, type Command, type CommandContext } from '../platform/command.ts';
import { databaseSettings } from '../config.ts';
import { openStoreToRead } from '../db/client.ts';
import { openPgDatabase } from '../db/pg/database.ts';
import { copySqliteToPostgres, CopyRefused } from '../db/copy/copy.ts';

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
  const options = { batchRows: count(values['batch-size'], '--batch-size', 500, 1), sample: count(values.sample, '--sample', 50, 0), replace: values.replace === true };
  const source = openStoreToRead(from);
  const target = openPgDatabase(settings);
  try {
    const report = await copySqliteToPostgres(source, target, options);
    for (const t of report.tables) {
      ctx.out(JSON.stringify({ table: t.table, source_rows: t.sourceRows, target_rows: t.targetRows, sampled: t.sampled, mismatches: t.mismatches }));
    }
    const rows = report.tables.reduce((n, t) => n + t.sourceRows, 0);
    // Media stays where it is: copying MIMIC_DATA_DIR/media into a bucket is not part of this command yet (docs/deploy.md).
    ctx.out(JSON.stringify({ copied: report.committed, tables: report.tables.length, rows, from, to: displayUrl(settings.url), media: 'not copied' }));
    if (!report.committed) ctx.err('the copy did not match its source (see the tables with mismatches above): nothing was committed');
    return report.committed ? 0 : 1;
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
    usage: 'db copy [--from FILE] [--to URL] [--replace] [--batch-size N] [--sample N]',
    help: [
      'Copies every table of a SQLite deployment into a PostgreSQL database (migrated first), in foreign-key order, streamed in batches inside one',
      'transaction, then checks it in the same transaction: row counts per table, and a sample of rows found by primary key with every column equal.',
      'It commits only when all agree; otherwise nothing is written (exit 1). Prints one JSON line per table {"table","source_rows","target_rows",',
      '"sampled","mismatches"} and a summary {"copied","tables","rows","from","to","media"}; values are never printed. Stop the service first:',
      'what it writes after the copy starts is not copied. The PostgreSQL deployment needs the same master key. Media files are not copied',
      '(a --media option to copy MIMIC_DATA_DIR/media into the S3 bucket is not there yet): see docs/deploy.md.',
    ].join('\n'),
    options: {
      from: { type: 'string', value: 'FILE', description: 'the SQLite file to copy, at this version\'s schema (run migrate on it first); it is only read', default: 'MIMIC_DATA_DIR/mimic.db' },
      to: { type: 'string', value: 'URL', description: 'the PostgreSQL database, postgres://user:password@host:5432/db, or env:NAME to read it from a variable (out of ps and shell history)', default: 'MIMIC_DATABASE_URL' },
      replace: { type: 'boolean', description: 'deletes every row of the target\'s tables first (same transaction), e.g. to redo a rehearsal copy; without it a target with rows is refused', default: 'off' },
      'batch-size': { type: 'string', value: 'N', description: 'rows per INSERT statement, at least 1 (fewer when a table has many columns)', default: '500' },
      sample: { type: 'string', value: 'N', description: 'rows per table compared column by column after the copy, 0 for counts only', default: '50' },
    },
    examples: ['db copy --to env:MIMIC_DATABASE_URL', 'db copy --from /var/lib/mimic/mimic.db --to postgres://mimic@db.internal:5432/mimic --sample 200'],
    run: copy,
  },
};
