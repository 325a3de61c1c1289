import type pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { appendAudit } from '../audit/contract.ts';
import { createSqliteToolStore, groupCommit, toRow, type PendingCall, type RawToolRow, type ToolStore, type ToolWrite } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

const byUser = statement('tools_by_user', 'SELECT * FROM tools WHERE id = $1 AND user_id = $2');
const byUserForUpdate = statement('tools_by_user_for_update', 'SELECT * FROM tools WHERE id = $1 AND user_id = $2 FOR UPDATE');
const firstPage = statement('tools_first_page', 'SELECT * FROM tools WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2');
const nextPage = statement(
  'tools_next_page',
  'SELECT * FROM tools WHERE user_id = $1 AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4',
);
// KEY SHARE: the secret cannot be deleted (nor its id change) until this transaction ends.
const ownedSecret = statement('tools_owned_secret', 'SELECT id FROM secrets WHERE id = $1 AND user_id = $2 FOR KEY SHARE');
// Conditional on the secret belonging to the same user, in the statement itself.
const insert = statement(
  'tools_insert',
  `INSERT INTO tools (id, user_id, name, description, provider, schema, config, secret_id, created_at, updated_at)
   SELECT $1, $2, $3, $4, $5, $6, $7, $8::text, $9, $10 WHERE $8::text IS NULL OR EXISTS (SELECT 1 FROM secrets WHERE id = $8::text AND user_id = $2)`,
);
const update = statement(
  'tools_update',
  'UPDATE tools SET name = $1, description = $2, provider = $3, schema = $4, config = $5, secret_id = $6, updated_at = $7 WHERE id = $8 AND user_id = $9',
);
const remove = statement('tools_delete', 'DELETE FROM tools WHERE id = $1 AND user_id = $2 RETURNING *');
const markUsed = statement('tools_mark_secret_used', 'UPDATE secrets SET last_used_at = GREATEST(COALESCE(last_used_at, $1), $1) WHERE id = $2');
/** foreign_key_violation: the tool's secret was deleted by a transaction that committed while this one ran. */
const secretGone = (err: unknown) => (err as { code?: unknown } | null)?.code === '23503';

/**
 * The tool definitions on PostgreSQL. Every call reads its tool from here (src/tools/call.ts
 * compiles a definition once per stored text, so a tool replaced by another process is used at
 * its next call). A write that names a secret locks that secret's row against deletion until
 * it commits; a secret deleted meanwhile makes it `secret_missing`.
 */
export function createPgToolStore(h: PgDatabase): ToolStore {
  const { pool } = h;
  const recordCalls = (calls: readonly PendingCall[]) =>
    withTx(pool, async (c) => {
      for (const { record, usedSecretId } of calls) {
        await appendAudit(c, record);
        if (usedSecretId) await markUsed(c, [record.at, usedSecretId]);
      }
    });

  return {
    get: async (userId, id) => {
      const raw = (await byUser<RawToolRow>(pool, [id, userId])).rows[0];
      return raw ? toRow(raw) : undefined;
    },
    list: async (userId, limit, cursor) =>
      (await (cursor ? nextPage<RawToolRow>(pool, [userId, cursor.createdAt, cursor.id, limit]) : firstPage<RawToolRow>(pool, [userId, limit]))).rows.map(toRow),
    async create(row, record) {
      try {
        return await withTx(pool, async (c) => {
          const inserted = await insert(c, [row.id, row.userId, row.name, row.description, row.provider, row.schema, row.config, row.secretId, row.createdAt, row.updatedAt]);
          if (inserted.rowCount === 0) return 'secret_missing' as const;
          await appendAudit(c, record);
          return row;
        });
      } catch (err) {
        if (secretGone(err)) return 'secret_missing';
        throw err;
      }
    },
    async replace(userId, id, v, updatedAt, record): Promise<ToolWrite> {
      try {
        return await withTx(pool, async (c): Promise<ToolWrite> => {
          const raw = (await byUserForUpdate<RawToolRow>(c, [id, userId])).rows[0];
          if (!raw) return 'not_found';
          if (v.secretId !== null && (await ownedSecret(c, [v.secretId, userId])).rowCount === 0) return 'secret_missing';
          await update(c, [v.name, v.description, v.provider, v.schema, v.config, v.secretId, updatedAt, id, userId]);
          const current = toRow(raw);
          await appendAudit(c, record(current));
          return { ...current, ...v, updatedAt };
        });
      } catch (err) {
        if (secretGone(err)) return 'secret_missing';
        throw err;
      }
    },
    delete: (userId, id, record) =>
      withTx(pool, async (c) => {
        const raw = (await remove<RawToolRow>(c, [id, userId])).rows[0];
        if (!raw) return undefined;
        const row = toRow(raw);
        await appendAudit(c, record(row));
        return row;
      }),
    recordCall: groupCommit(recordCalls),
  };
}

/** The ToolStore on the database's dialect. */
export const toolStoreOn = (database: Database): ToolStore => onDialect(database, { sqlite: createSqliteToolStore, postgres: createPgToolStore });
