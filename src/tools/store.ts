import type { Store } from '../db/client.ts';
import type { ToolRow } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';
import { auditWriter, type AuditRecord } from '../audit/contract.ts';

/** The columns a create or a full replace (PUT) writes. */
export type ToolValues = Pick<ToolRow, 'name' | 'description' | 'provider' | 'schema' | 'config' | 'secretId'>;

/** `secret_missing`: `auth.secret_id` names no secret of this user (checked in the same transaction as the write). */
export type ToolWrite = ToolRow | 'not_found' | 'secret_missing';

export interface ToolStore {
  get(userId: string, id: string): Promise<ToolRow | undefined>;
  /** Newest first, `limit` rows strictly after `cursor` in (created_at desc, id desc) order. */
  list(userId: string, limit: number, cursor: PageCursor | null): Promise<ToolRow[]>;
  create(row: ToolRow, audit: AuditRecord): Promise<ToolRow | 'secret_missing'>;
  /** The audit row is built from the row as it was (what changed). */
  replace(userId: string, id: string, values: ToolValues, updatedAt: number, audit: (current: ToolRow) => AuditRecord): Promise<ToolWrite>;
  delete(userId: string, id: string, audit: (row: ToolRow) => AuditRecord): Promise<ToolRow | undefined>;
  /** A call's audit row, and the secret it used marked as used at `record.at` (never moved back in time). */
  recordCall(record: AuditRecord, usedSecretId: string | null): Promise<void>;
}

export interface PendingCall {
  record: AuditRecord;
  usedSecretId: string | null;
  done: () => void;
  failed: (err: unknown) => void;
}

/**
 * Group commit of `recordCall`: the calls that finish in the same turn of the event loop share
 * one transaction (a commit, not the inserts, is most of a call's database time). Each caller
 * still waits until its own row is committed; a batch that fails is retried row by row, so one
 * bad row fails only its own call.
 */
export function groupCommit(commit: (calls: readonly PendingCall[]) => void | Promise<void>): ToolStore['recordCall'] {
  let pending: PendingCall[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    try {
      await commit(batch);
      for (const call of batch) call.done();
    } catch {
      for (const call of batch) {
        try {
          await commit([call]);
          call.done();
        } catch (err) {
          call.failed(err);
        }
      }
    }
  };
  return (record, usedSecretId) =>
    new Promise<void>((done, failed) => {
      if (pending.length === 0) setImmediate(() => void flush());
      pending.push({ record, usedSecretId, done, failed });
    });
}

/** A `tools` row as SQL returns it (both dialects). */
export type RawToolRow = {
  id: string;
  user_id: string;
  name: string;
  description: string;
  provider: string;
  schema: string;
  config: string;
  secret_id: string | null;
  created_at: number;
  updated_at: number;
};

export const toRow = (r: RawToolRow): ToolRow => ({
  id: r.id, userId: r.user_id, name: r.name, description: r.description, provider: r.provider, schema: r.schema, config: r.config,
  secretId: r.secret_id, createdAt: r.created_at, updatedAt: r.updated_at,
});

export function createSqliteToolStore(handle: Store): ToolStore {
  const { sqlite } = handle;
  const audit = auditWriter(sqlite);
  const byUser = sqlite.prepare<[string, string], RawToolRow>('SELECT * FROM tools WHERE id = ? AND user_id = ?');
  const firstPage = sqlite.prepare<[string, number], RawToolRow>('SELECT * FROM tools WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?');
  const nextPage = sqlite.prepare<[string, number, number, string, number], RawToolRow>(
    'SELECT * FROM tools WHERE user_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?',
  );
  const ownedSecret = sqlite.prepare<[string, string], { id: string }>('SELECT id FROM secrets WHERE id = ? AND user_id = ?');
  // Conditional on the secret belonging to the same user, in the statement itself.
  const insert = sqlite.prepare(
    `INSERT INTO tools (id, user_id, name, description, provider, schema, config, secret_id, created_at, updated_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ? IS NULL OR EXISTS (SELECT 1 FROM secrets WHERE id = ? AND user_id = ?)`,
  );
  const update = sqlite.prepare<[string, string, string, string, string, string | null, number, string, string]>(
    'UPDATE tools SET name = ?, description = ?, provider = ?, schema = ?, config = ?, secret_id = ?, updated_at = ? WHERE id = ? AND user_id = ?',
  );
  const remove = sqlite.prepare<[string, string], RawToolRow>('DELETE FROM tools WHERE id = ? AND user_id = ? RETURNING *');
  const markUsed = sqlite.prepare<[number, number, string]>(
    'UPDATE secrets SET last_used_at = CASE WHEN last_used_at IS NULL OR last_used_at < ? THEN ? ELSE last_used_at END WHERE id = ?',
  );

  const owns = (userId: string, secretId: string | null) => secretId === null || ownedSecret.get(secretId, userId) !== undefined;

  const create = sqlite.transaction((row: ToolRow, record: AuditRecord): ToolRow | 'secret_missing' => {
    const inserted = insert.run(
      row.id, row.userId, row.name, row.description, row.provider, row.schema, row.config, row.secretId, row.createdAt, row.updatedAt,
      row.secretId, row.secretId, row.userId,
    );
    if (inserted.changes === 0) return 'secret_missing';
    audit(record);
    return row;
  });
  const replace = sqlite.transaction((userId: string, id: string, v: ToolValues, updatedAt: number, record: (current: ToolRow) => AuditRecord): ToolWrite => {
    const raw = byUser.get(id, userId);
    if (!raw) return 'not_found';
    if (!owns(userId, v.secretId)) return 'secret_missing';
    update.run(v.name, v.description, v.provider, v.schema, v.config, v.secretId, updatedAt, id, userId);
    const current = toRow(raw);
    audit(record(current));
    return { ...current, ...v, updatedAt };
  });
  const del = sqlite.transaction((userId: string, id: string, record: (row: ToolRow) => AuditRecord) => {
    const raw = remove.get(id, userId);
    if (!raw) return undefined;
    const row = toRow(raw);
    audit(record(row));
    return row;
  });
  const recordCalls = sqlite.transaction((calls: readonly PendingCall[]) => {
    for (const { record, usedSecretId } of calls) {
      audit(record);
      if (usedSecretId) markUsed.run(record.at, record.at, usedSecretId);
    }
  });

  const recordCall = groupCommit(recordCalls);

  return {
    get: async (userId, id) => {
      const raw = byUser.get(id, userId);
      return raw ? toRow(raw) : undefined;
    },
    list: async (userId, limit, cursor) =>
      (cursor ? nextPage.all(userId, cursor.createdAt, cursor.createdAt, cursor.id, limit) : firstPage.all(userId, limit)).map(toRow),
    create: async (row, record) => create(row, record),
    replace: async (userId, id, values, updatedAt, record) => replace(userId, id, values, updatedAt, record),
    delete: async (userId, id, record) => del(userId, id, record),
    recordCall,
  };
}
