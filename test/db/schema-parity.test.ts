import { describe, expect, it } from 'vitest';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import * as sqliteSchema from '../../src/db/schema.ts';
import * as pgSchema from '../../src/db/schema-pg.ts';

/** Each schema's tables as {table: [column:notNull:primary...]} and their index names. */
function shapeOf(tables: Record<string, unknown>, dialect: 'sqlite' | 'pg') {
  const out: Record<string, { columns: string[]; indexes: string[]; foreignKeys: number }> = {};
  for (const t of Object.values(tables)) {
    const cfg = dialect === 'sqlite' ? (t instanceof SQLiteTable ? sqliteConfig(t) : null) : t instanceof PgTable ? pgConfig(t) : null;
    if (!cfg) continue;
    out[cfg.name] = {
      columns: cfg.columns.map((c) => `${c.name}${c.notNull ? ' not null' : ''}${c.primary ? ' primary' : ''}${c.hasDefault ? ' default' : ''}`).sort(),
      indexes: cfg.indexes.map((i) => `${i.config.name}${i.config.unique ? ' unique' : ''}(${i.config.columns.map((c) => ('name' in c ? c.name : '?')).join(',')})`).sort(),
      foreignKeys: cfg.foreignKeys.length,
    };
  }
  return out;
}

describe('the PostgreSQL schema (src/db/schema-pg/) mirrors the SQLite one (src/db/schema/)', () => {
  it('has the same tables, columns (nullability, keys, defaults), indexes and foreign keys', () => {
    const sqlite = shapeOf(sqliteSchema, 'sqlite');
    expect(Object.keys(sqlite).length).toBeGreaterThan(20);
    const pg = shapeOf(pgSchema, 'pg');
    for (const name of pgSchema.PG_ONLY_TABLES) {
      expect(pg[name], `${name} is in the PostgreSQL schema`).toBeDefined();
      delete pg[name];
    }
    expect(pg).toEqual(sqlite);
  });
});
