import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement } from '../db/pg/tx.ts';
import { onDialect, type Database } from '../db/database.ts';
import type { PageCursor } from '../pagination.ts';
import { createSqliteAuditStore, prefixEnd, toRow, type AuditFilter, type AuditRecord, type AuditStore, type RawAuditRow } from './store.ts';

const insert = statement(
  'audit_append',
  'INSERT INTO audit_events (id, user_id, at, action, outcome, secret_id, tool_id, call_id, external_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
);

/**
 * Writes one audit row on `on`: the pool, or the client of a PostgreSQL store's transaction (a
 * secret created and its audit row commit together), as `auditWriter` does on SQLite.
 */
export async function appendAudit(on: pg.Pool | pg.PoolClient, e: AuditRecord): Promise<void> {
  await insert(on, [e.id, e.userId, e.at, e.action, e.outcome, e.secretId ?? null, e.toolId ?? null, e.callId ?? null, e.externalId ?? null, JSON.stringify(e.detail ?? {})]);
}

/**
 * The filtered list, as on SQLite: one statement per combination of filters (a few hundred at
 * most), each a named statement (prepared once per connection) whose name is the hash of its
 * text. A family of actions is a range on the text, not a LIKE (`_` is no wildcard). The range
 * compares in the C collation: the database's own collation may order `.` and `/` otherwise.
 */
function listQuery(f: AuditFilter, limit: number, cursor: PageCursor | null): pg.QueryConfig {
  const values: unknown[] = [f.userId];
  const conditions = ['user_id = $1'];
  const param = (v: unknown) => `$${values.push(v)}`;
  if (f.secretId) conditions.push(`secret_id = ${param(f.secretId)}`);
  if (f.toolId) conditions.push(`tool_id = ${param(f.toolId)}`);
  if (f.action) conditions.push(`action = ${param(f.action)}`);
  if (f.actionPrefix) conditions.push(`action COLLATE "C" >= ${param(f.actionPrefix)} AND action COLLATE "C" < ${param(prefixEnd(f.actionPrefix))}`);
  if (f.outcome) conditions.push(`outcome = ${param(f.outcome)}`);
  if (f.since !== undefined) conditions.push(`at >= ${param(f.since)}`);
  if (f.until !== undefined) conditions.push(`at < ${param(f.until)}`);
  if (cursor) {
    const at = param(cursor.createdAt);
    conditions.push(`(at < ${at} OR (at = ${at} AND id < ${param(cursor.id)}))`);
  }
  const text = `SELECT * FROM audit_events WHERE ${conditions.join(' AND ')} ORDER BY at DESC, id DESC LIMIT ${param(limit)}`;
  return { name: `audit_list_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text, values };
}

/** The AuditStore on PostgreSQL. */
export function createPgAuditStore(h: PgDatabase): AuditStore {
  const { pool } = h;
  return {
    append: (record) => appendAudit(pool, record),
    list: async (filter, limit, cursor) => (await pool.query<RawAuditRow>(listQuery(filter, limit, cursor))).rows.map(toRow),
  };
}

/** The AuditStore on the database's dialect. */
export const auditStoreOn = (database: Database): AuditStore => onDialect(database, { sqlite: createSqliteAuditStore, postgres: createPgAuditStore });
