import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as sqliteSchema from '../schema.ts';
import * as pgSchema from '../schema-pg.ts';

/** A table `mimic db copy` moves: its columns, its primary key and the tables its foreign keys point at. */
export interface CopyTable {
  name: string;
  columns: string[];
  primaryKey: string[];
  references: string[];
}

type Shape = Omit<CopyTable, 'references'> & { references: Set<string> };

/** What getTableConfig tells of a table, in either dialect. */
interface TableConfig {
  name: string;
  columns: { name: string; primary: boolean }[];
  primaryKeys: { columns: { name: string }[] }[];
  foreignKeys: { reference: () => { foreignTable: unknown } }[];
}

function shapes(schema: Record<string, unknown>, config: (table: unknown) => TableConfig | null): Map<string, Shape> {
  const out = new Map<string, Shape>();
  for (const t of Object.values(schema)) {
    const cfg = config(t);
    if (!cfg) continue;
    const primaryKey = cfg.primaryKeys[0]?.columns.map((c) => c.name) ?? cfg.columns.filter((c) => c.primary).map((c) => c.name);
    const references = new Set(cfg.foreignKeys.map((fk) => config(fk.reference().foreignTable)!.name));
    out.set(cfg.name, { name: cfg.name, columns: cfg.columns.map((c) => c.name), primaryKey, references });
  }
  return out;
}

const sqliteConfig = (t: unknown): TableConfig | null => (t instanceof SQLiteTable ? sqliteTableConfig(t) : null);
const pgConfig = (t: unknown): TableConfig | null => (t instanceof PgTable ? pgTableConfig(t) : null);

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/**
 * Every table of the schema, read from the drizzle schemas of both dialects (never a
 * hand-written list), each after the tables its foreign keys point at; ties by name. Throws when
 * the two schemas disagree on a table, its columns or its primary key (test/db/schema-parity.test.ts
 * keeps them equal), or when the foreign keys form a cycle (no order could insert them).
 */
export function copyTables(): CopyTable[] {
  const sqlite = shapes(sqliteSchema, sqliteConfig);
  const pg = shapes(pgSchema, pgConfig);
  for (const name of pgSchema.PG_ONLY_TABLES) pg.delete(name);
  if (!same([...sqlite.keys()], [...pg.keys()])) throw new Error('the SQLite and PostgreSQL schemas list different tables');
  for (const [name, s] of sqlite) {
    const p = pg.get(name)!;
    if (!same(s.columns, p.columns) || !same(s.primaryKey, p.primaryKey) || !same([...s.references], [...p.references])) {
      throw new Error(`the SQLite and PostgreSQL schemas differ on the table ${name}`);
    }
    if (s.primaryKey.length === 0) throw new Error(`the table ${name} has no primary key to sample by`);
  }
  const ordered: CopyTable[] = [];
  const placed = new Set<string>();
  const waiting = [...sqlite.values()].sort((a, b) => a.name.localeCompare(b.name));
  while (waiting.length > 0) {
    const next = waiting.findIndex((t) => [...t.references].every((r) => placed.has(r)));
    if (next < 0) throw new Error(`the foreign keys of ${waiting.map((t) => t.name).join(', ')} form a cycle`);
    const [t] = waiting.splice(next, 1);
    placed.add(t!.name);
    ordered.push({ name: t!.name, columns: t!.columns, primaryKey: t!.primaryKey, references: [...t!.references].sort() });
  }
  return ordered;
}
