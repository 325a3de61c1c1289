import type pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import type { SecretRow } from '../db/schema.ts';
import type { SealedValue } from '../vault/index.ts';
import { appendAudit } from '../audit/contract.ts';
import { createSqliteSecretStore, toRow, usageOf, type RawSecretRow, type AgentUsingRow, type DeleteOutcome, type SecretStore, type ToolUsingRow } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** PostgreSQL's foreign_key_violation: a row referred to (or referring) changed under a concurrent write. */
export const isForeignKeyViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '23503';

/**
 * An audit row written inside the caller's transaction, so it commits with the change it
 * records (the SQLite stores' `auditWriter`). The secrets capability's PostgreSQL stores share it.
 */
const byUser = statement('secrets_by_user', 'SELECT * FROM secrets WHERE id = $1 AND user_id = $2');
const byId = statement('secrets_by_id', 'SELECT * FROM secrets WHERE id = $1');
const sealedOf = statement('secrets_sealed_of', 'SELECT field, kek_id AS "kekId", wrapped_key AS "wrappedKey", ciphertext FROM secret_fields WHERE secret_id = $1');
const firstPage = statement('secrets_first_page', 'SELECT * FROM secrets WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2');
const nextPage = statement(
  'secrets_next_page',
  'SELECT * FROM secrets WHERE user_id = $1 AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4',
);
const userById = statement('secrets_user_exists', 'SELECT id FROM users WHERE id = $1');
const insert = statement(
  'secrets_insert',
  `INSERT INTO secrets (id, user_id, provider, type, header_name, token_url, client_id, client_auth_method, expires_at, status, version, created_at, updated_at, last_used_at, refreshed_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
);
const updateCredential = statement(
  'secrets_update_credential',
  'UPDATE secrets SET provider = $1, type = $2, header_name = $3, updated_at = $4, version = version + 1 WHERE id = $5 AND user_id = $6 RETURNING *',
);
const updateGrant = statement(
  'secrets_update_grant',
  `UPDATE secrets SET provider = $1, token_url = $2, client_id = $3, client_auth_method = $4, expires_at = $5, updated_at = $6, status = 'active', version = version + 1
   WHERE id = $7 AND user_id = $8 AND type = 'oauth2' RETURNING *`,
);
const updateTokens = statement(
  'secrets_update_tokens',
  `UPDATE secrets SET expires_at = $1, refreshed_at = $2, status = 'active', version = version + 1 WHERE id = $3 AND ($4::bigint IS NULL OR version = $4)`,
);
const needsReauthorization = statement(
  'secrets_needs_reauthorization',
  `UPDATE secrets SET status = 'needs_reauthorization', updated_at = $1 WHERE id = $2 AND ($3::bigint IS NULL OR version = $3)`,
);
const lockSecret = statement('secrets_lock_for_delete', 'SELECT id FROM secrets WHERE id = $1 AND user_id = $2 FOR UPDATE');
const referencing = statement('secrets_referencing_tools', 'SELECT id FROM tools WHERE secret_id = $1 ORDER BY id LIMIT $2');
const referencingAgents = statement('secrets_referencing_agents', 'SELECT id FROM agents WHERE secret_id = $1 ORDER BY id LIMIT $2');
// Conditional: a tool or an agent created meanwhile (by another writer) keeps its secret; one
// that commits while this runs makes the foreign key refuse the delete (caught below).
const remove = statement(
  'secrets_delete',
  `DELETE FROM secrets WHERE id = $1 AND user_id = $2
     AND NOT EXISTS (SELECT 1 FROM tools WHERE tools.secret_id = secrets.id)
     AND NOT EXISTS (SELECT 1 FROM agents WHERE agents.secret_id = secrets.id) RETURNING *`,
);
const toolsUsing = statement(
  'secrets_tools_using',
  'SELECT secret_id, id, name FROM tools WHERE user_id = $1 AND secret_id = ANY($2::text[]) ORDER BY created_at DESC, id DESC',
);
const agentsUsing = statement(
  'secrets_agents_using',
  `SELECT a.secret_id AS secret_id, a.id AS id, a.body::json ->> 'preview_name' AS name, NULL::text AS tool_id, a.created_at AS created_at
     FROM agents a WHERE a.user_id = $1 AND a.secret_id = ANY($2::text[])
   UNION ALL
   SELECT t.secret_id, a.id, a.body::json ->> 'preview_name', t.id, a.created_at
     FROM agent_tools at JOIN tools t ON t.id = at.tool_id JOIN agents a ON a.id = at.agent_id
    WHERE a.user_id = $1 AND t.secret_id = ANY($2::text[])
   ORDER BY created_at DESC, id DESC`,
);
const removeFields = statement('secrets_remove_fields', 'DELETE FROM secret_fields WHERE secret_id = $1');
const upsertFields = statement(
  'secrets_upsert_fields',
  `INSERT INTO secret_fields (secret_id, field, kek_id, wrapped_key, ciphertext)
   SELECT $1, f.field, f.kek_id, f.wrapped_key, f.ciphertext FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS f(field, kek_id, wrapped_key, ciphertext)
   ON CONFLICT (secret_id, field) DO UPDATE SET kek_id = excluded.kek_id, wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext`,
);

async function writeSealed(c: pg.PoolClient, secretId: string, values: SealedValue[], replaceAll: boolean): Promise<void> {
  if (replaceAll) await removeFields(c, [secretId]);
  if (values.length === 0) return;
  await upsertFields(c, [secretId, values.map((v) => v.field), values.map((v) => v.kekId), values.map((v) => v.wrappedKey), values.map((v) => v.ciphertext)]);
}

/**
 * The secrets and their sealed values on PostgreSQL: every change is one conditional UPDATE
 * (or DELETE) ... RETURNING that bumps `version` itself, committed with its sealed values and
 * audit row in one transaction (src/db/pg/tx.ts).
 */
export function createPgSecretStore(h: PgDatabase): SecretStore {
  const { pool } = h;
  const one = async (q: Promise<pg.QueryResult<RawSecretRow>>) => {
    const row = (await q).rows[0];
    return row ? toRow(row) : undefined;
  };

  return {
    get: (userId, id) => one(byUser(pool, [id, userId])),
    getById: (id) => one(byId(pool, [id])),
    sealedValues: async (secretId) => (await sealedOf<SealedValue>(pool, [secretId])).rows,
    list: async (userId, limit, cursor) =>
      (await (cursor ? nextPage<RawSecretRow>(pool, [userId, cursor.createdAt, cursor.id, limit]) : firstPage<RawSecretRow>(pool, [userId, limit]))).rows.map(toRow),
    userExists: async (userId) => (await userById(pool, [userId])).rowCount === 1,
    create: (row, sealed, record) =>
      withTx(pool, async (c) => {
        await insert(c, [
          row.id, row.userId, row.provider, row.type, row.headerName, row.tokenUrl, row.clientId, row.clientAuthMethod, row.expiresAt, row.status, row.version,
          row.createdAt, row.updatedAt, row.lastUsedAt, row.refreshedAt,
        ]);
        await writeSealed(c, row.id, sealed, false);
        await appendAudit(c, record);
      }),
    replace: (userId, id, p, sealed, record) =>
      withTx(pool, async (c) => {
        const updated = await one(updateCredential<RawSecretRow>(c, [p.provider, p.type, p.headerName, p.updatedAt, id, userId]));
        if (!updated) return undefined;
        await writeSealed(c, id, sealed.values, sealed.replaceAll);
        await appendAudit(c, record);
        return updated;
      }),
    replaceGrant: (userId, id, p, sealed, record) =>
      withTx(pool, async (c) => {
        const updated = await one(updateGrant<RawSecretRow>(c, [p.provider, p.tokenUrl, p.clientId, p.clientAuthMethod ?? null, p.expiresAt, p.updatedAt, id, userId]));
        if (!updated) return undefined;
        await writeSealed(c, id, sealed, true);
        await appendAudit(c, record);
        return updated;
      }),
    async delete(userId, id, record, max = 20): Promise<DeleteOutcome> {
      try {
        const deleted = await withTx(pool, async (c) => {
          // Wait for (and then block) an agent being written with this secret: it locks the row
          // too, so its commit is seen by the NOT EXISTS below instead of being nulled by the key.
          await lockSecret(c, [id, userId]);
          const removed = await one(remove<RawSecretRow>(c, [id, userId]));
          if (removed) await appendAudit(c, record(removed));
          return removed;
        });
        if (deleted) return { deleted };
      } catch (err) {
        if (!isForeignKeyViolation(err)) throw err;
      }
      if (!(await byUser(pool, [id, userId])).rowCount) return undefined;
      const [tools, agents] = await Promise.all([referencing<{ id: string }>(pool, [id, max]), referencingAgents<{ id: string }>(pool, [id, max])]);
      return { usedBy: tools.rows.map((r) => r.id), ...(agents.rowCount ? { usedByAgents: agents.rows.map((r) => r.id) } : {}) };
    },
    async usage(userId, secretIds, max) {
      if (secretIds.length === 0) return usageOf(secretIds, [], [], max);
      const ids = [...secretIds];
      // One snapshot for both reads: a tool moved between secrets meanwhile is counted once.
      const [tools, agents] = await withTx(
        pool,
        async (c) => [(await toolsUsing<ToolUsingRow>(c, [userId, ids])).rows, (await agentsUsing<AgentUsingRow>(c, [userId, ids])).rows] as const,
        { isolation: 'repeatable read' },
      );
      return usageOf(secretIds, tools, agents, max);
    },
    saveTokens: (secretId, expiresAt, refreshedAt, sealed, seen) =>
      withTx(pool, async (c) => {
        if ((await updateTokens(c, [expiresAt, refreshedAt, secretId, seen ?? null])).rowCount === 0) return false;
        await writeSealed(c, secretId, sealed, false);
        return true;
      }),
    markNeedsReauthorization: async (secretId, now, seen) => (await needsReauthorization(pool, [now, secretId, seen ?? null])).rowCount === 1,
  };
}

/** The SecretStore on the database's dialect. */
export const secretStoreOn = (database: Database): SecretStore => onDialect(database, { sqlite: createSqliteSecretStore, postgres: createPgSecretStore });
