import type pg from 'pg';
import type { Store } from '../client.ts';
import type { PgDatabase } from '../pg/database.ts';
import { migrateLocked } from '../pg/database.ts';
import { withTx } from '../pg/tx.ts';
import { copyTables, type CopyTable } from './tables.ts';

/**
 * `mimic db copy`: a SQLite deployment's rows into PostgreSQL. One read snapshot of the SQLite
 * file and one PostgreSQL transaction: every table is streamed in foreign-key order, in
 * batches (never a whole table in memory), then checked inside the same transaction (row counts,
 * and a sample of rows by primary key compared column by column). The transaction commits only
 * when every check agrees; otherwise nothing is written and the report says where they differ.
 * Values are compared, never printed: a report names tables, keys and columns only.
 */
export interface CopyOptions {
  /** Rows per INSERT (capped so a statement stays under PostgreSQL's 65535 parameters). */
  batchRows: number;
  /** Rows per table compared column by column after the copy. */
  sample: number;
  /** Empty the target's tables first (in the same transaction) instead of refusing a non-empty target. */
  replace: boolean;
  /** Called after each table is copied. */
  onTable?: (table: string, rows: number) => void;
}

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sampled: number;
  /** A sampled row missing from the target (column null) or a column that differs, by primary key. */
  mismatches: { key: Record<string, unknown>; column: string | null }[];
}

export interface CopyReport {
  /** Whether the copy was committed: every count and every sampled row agreed. */
  committed: boolean;
  tables: TableCheck[];
}

/** The copy cannot start: the source is not at this version's schema, or the target holds rows. Nothing was written. */
export class CopyRefused extends Error {}

const MAX_PARAMETERS = 65_535;
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Refuses a SQLite file whose tables or columns are not exactly this version's (an older file is migrated first; a newer one is copied by its own version). */
function checkSource(source: Store, tables: readonly CopyTable[]): void {
  const present = new Set(
    source.sqlite
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'`)
      .pluck()
      .all() as string[],
  );
  const known = new Set(tables.map((t) => t.name));
  const missing = [...known].filter((n) => !present.has(n));
  if (missing.length > 0) throw new CopyRefused(`the SQLite file lacks the tables ${missing.join(', ')}: it is from an older version; run \`mimic migrate\` on it with this version first`);
  const unknown = [...present].filter((n) => !known.has(n));
  if (unknown.length > 0) throw new CopyRefused(`the SQLite file has tables this version does not know (${unknown.join(', ')}): copy it with the version that wrote it`);
  for (const t of tables) {
    const columns = (source.sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t.name) as string[]).sort();
    if (columns.join() !== [...t.columns].sort().join()) {
      throw new CopyRefused(`the SQLite table ${t.name} has the columns ${columns.join(', ')}, this version expects ${[...t.columns].sort().join(', ')}: migrate it with this version first`);
    }
  }
}

/** The tables of the target that hold rows. */
async function occupied(c: pg.PoolClient, tables: readonly CopyTable[]): Promise<string[]> {
  const text = tables.map((t, i) => `SELECT $${i + 1}::text AS name WHERE EXISTS (SELECT 1 FROM ${q(t.name)})`).join(' UNION ALL ');
  return (await c.query<{ name: string }>(text, tables.map((t) => t.name))).rows.map((r) => r.name);
}

function insertText(t: CopyTable, rows: number): string {
  const n = t.columns.length;
  const values = Array.from({ length: rows }, (_, r) => `(${t.columns.map((_, i) => `$${r * n + i + 1}`).join(', ')})`);
  return `INSERT INTO ${q(t.name)} (${t.columns.map(q).join(', ')}) VALUES ${values.join(', ')}`;
}

/** Streams one table from the snapshot into the transaction; returns the rows copied. */
async function copyTable(source: Store, c: pg.PoolClient, t: CopyTable, batchRows: number): Promise<number> {
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / t.columns.length)));
  const full = { name: `mimic_copy_${t.name}_${perBatch}`, text: insertText(t, perBatch) };
  const read = source.sqlite.prepare(`SELECT ${t.columns.map(q).join(', ')} FROM ${q(t.name)}`).raw(true);
  let batch: unknown[][] = [];
  let copied = 0;
  const flush = async () => {
    const values = batch.flat();
    await c.query(batch.length === perBatch ? { ...full, values } : { text: insertText(t, batch.length), values });
    copied += batch.length;
    batch = [];
  };
  // The iterator holds the statement between batches; nothing else reads this connection meanwhile.
  for (const row of read.iterate() as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length === perBatch) await flush();
  }
  if (batch.length > 0) await flush();
  return copied;
}

const equal = (a: unknown, b: unknown): boolean => (Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b);

/** Row counts of both sides, and `sample` random source rows found by primary key in the target with every column equal. */
async function checkTable(source: Store, c: pg.PoolClient, t: CopyTable, sample: number): Promise<TableCheck> {
  const sourceRows = source.sqlite.prepare(`SELECT count(*) FROM ${q(t.name)}`).pluck().get() as number;
  const targetRows = Number((await c.query<{ n: number }>(`SELECT count(*) AS n FROM ${q(t.name)}`)).rows[0]!.n);
  const cols = t.columns.map(q).join(', ');
  const picked = source.sqlite.prepare(`SELECT ${cols} FROM ${q(t.name)} ORDER BY random() LIMIT ?`).raw(true).all(sample) as unknown[][];
  const where = t.primaryKey.map((k, i) => `${q(k)} = $${i + 1}`).join(' AND ');
  const byKey = { name: `mimic_copy_sample_${t.name}`, text: `SELECT ${cols} FROM ${q(t.name)} WHERE ${where}`, rowMode: 'array' as const };
  const keyAt = t.primaryKey.map((k) => t.columns.indexOf(k));
  const mismatches: TableCheck['mismatches'] = [];
  for (const row of picked) {
    const keyValues = keyAt.map((i) => row[i]);
    const key = Object.fromEntries(t.primaryKey.map((k, i) => [k, keyValues[i]]));
    const found = (await c.query<unknown[]>({ ...byKey, values: keyValues })).rows[0];
    if (!found) {
      mismatches.push({ key, column: null });
      continue;
    }
    for (const [i, column] of t.columns.entries()) if (!equal(row[i], found[i])) mismatches.push({ key, column });
  }
  return { table: t.name, sourceRows, targetRows, sampled: picked.length, mismatches };
}

class ChecksFailed extends Error {}

/**
 * Copies every table of `source` (a SQLite file at this version's schema) into `target`,
 * migrating the target first. Refuses (CopyRefused, nothing written) a target with rows unless
 * `replace`. Run it with the service stopped: rows written to the SQLite file after the copy's
 * snapshot are not copied.
 */
export async function copySqliteToPostgres(source: Store, target: PgDatabase, opts: CopyOptions): Promise<CopyReport> {
  const tables = copyTables();
  checkSource(source, tables);
  await migrateLocked(target.pool);
  // One read snapshot for the copy and its checks (WAL: writers may go on; what they write is not copied).
  source.sqlite.exec('BEGIN');
  const checks: TableCheck[] = [];
  try {
    await withTx(target.pool, async (c) => {
      const full = await occupied(c, tables);
      if (full.length > 0 && !opts.replace) {
        throw new CopyRefused(`the target database already holds rows (in ${full.join(', ')}): copy into an empty database, or pass --replace to delete them first`);
      }
      if (full.length > 0) await c.query(`TRUNCATE ${tables.map((t) => q(t.name)).join(', ')}`);
      for (const t of tables) {
        const rows = await copyTable(source, c, t, opts.batchRows).catch((err: unknown) => {
          throw new Error(`copying the table ${t.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        });
        opts.onTable?.(t.name, rows);
      }
      for (const t of tables) checks.push(await checkTable(source, c, t, opts.sample));
      if (checks.some((x) => x.sourceRows !== x.targetRows || x.mismatches.length > 0)) throw new ChecksFailed();
    });
  } catch (err) {
    if (!(err instanceof ChecksFailed)) throw err;
    return { committed: false, tables: checks };
  } finally {
    source.sqlite.exec('COMMIT');
  }
  // Fresh statistics for the planner: the tables went from empty to full in one transaction.
  await target.pool.query('ANALYZE');
  return { committed: true, tables: checks };
}
