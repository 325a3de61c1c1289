import type pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { createSqliteAgentStore, type RawAgentRow as StoredAgentRow, type AgentRefusal, type AgentRow, type AgentStore, type AgentUpdate, type AgentValues } from './store.ts';
import { CLIENT_KEYS_TOPIC } from './client-keys/store-pg.ts';
import { onDialect, type Database } from '../db/database.ts';

/** An agent's row and its tools in order. */
type RawAgentRow = StoredAgentRow & { tool_ids: string[] };

/** An agent's columns and its tools in order (an array, so a page is one query). */
const COLUMNS = `a.id, a.user_id, a.body, a.secret_id, a.voice, a.version, a.created_at, a.modified_at,
  coalesce((SELECT array_agg(t.tool_id ORDER BY t.position) FROM agent_tools t WHERE t.agent_id = a.id), '{}') AS tool_ids`;

const byUser = statement('agents_get', `SELECT ${COLUMNS} FROM agents a WHERE a.id = $1 AND a.user_id = $2`);
const firstPage = statement('agents_first_page', `SELECT ${COLUMNS} FROM agents a WHERE a.user_id = $1 ORDER BY a.created_at DESC, a.id DESC LIMIT $2`);
const nextPage = statement(
  'agents_next_page',
  `SELECT ${COLUMNS} FROM agents a WHERE a.user_id = $1 AND (a.created_at < $2 OR (a.created_at = $2 AND a.id < $3)) ORDER BY a.created_at DESC, a.id DESC LIMIT $4`,
);
// FOR KEY SHARE: a referenced secret or tool cannot be deleted between this check and the commit
// (a delete that came first makes the check find nothing); updates of other columns go on.
const ownedSecret = statement('agents_owned_secret', 'SELECT id FROM secrets WHERE id = $1 AND user_id = $2 FOR KEY SHARE');
const ownedTools = statement('agents_owned_tools', 'SELECT id FROM tools WHERE id = ANY($1::text[]) AND user_id = $2 FOR KEY SHARE');
const insert = statement(
  'agents_insert',
  'INSERT INTO agents (id, user_id, body, secret_id, voice, version, created_at, modified_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
);
// Held until the commit: a concurrent update of the same agent waits, then finds the version moved.
const lockAgent = statement('agents_lock', 'SELECT version FROM agents WHERE id = $1 AND user_id = $2 FOR NO KEY UPDATE');
const update = statement(
  'agents_update',
  `UPDATE agents SET body = $1, secret_id = $2, voice = $3, modified_at = $4, version = version + 1 WHERE id = $5 AND user_id = $6 AND version = $7
   RETURNING id, user_id, body, secret_id, voice, version, created_at, modified_at`,
);
const clearTools = statement('agents_clear_tools', 'DELETE FROM agent_tools WHERE agent_id = $1');
const insertTools = statement(
  'agents_insert_tools',
  'INSERT INTO agent_tools (agent_id, tool_id, position) SELECT $1, t.tool_id, t.ord - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t(tool_id, ord)',
);
// The statement's snapshot still holds the tools the cascade removes: the row comes back whole.
const remove = statement(
  'agents_delete',
  `WITH gone AS (DELETE FROM agents WHERE id = $1 AND user_id = $2 RETURNING *)
   SELECT a.id, a.user_id, a.body, a.secret_id, a.voice, a.version, a.created_at, a.modified_at,
     coalesce((SELECT array_agg(t.tool_id ORDER BY t.position) FROM agent_tools t WHERE t.agent_id = a.id), '{}') AS tool_ids
   FROM gone a`,
);

const toRow = (r: StoredAgentRow, toolIds: string[]): AgentRow => ({
  id: r.id, userId: r.user_id, body: r.body, secretId: r.secret_id, toolIds, voice: r.voice, version: r.version, createdAt: r.created_at, modifiedAt: r.modified_at,
});
const fromRaw = (r: RawAgentRow): AgentRow => toRow(r, r.tool_ids);

/** The first reference that is not the user's own, if any; what it finds stays until the commit. */
async function refusal(c: pg.PoolClient, userId: string, v: AgentValues): Promise<AgentRefusal | undefined> {
  if (v.secretId !== null && (await ownedSecret(c, [v.secretId, userId])).rowCount === 0) return { refused: 'secret' };
  if (v.toolIds.length === 0) return undefined;
  const owned = new Set((await ownedTools<{ id: string }>(c, [v.toolIds, userId])).rows.map((r) => r.id));
  const index = v.toolIds.findIndex((id) => !owned.has(id));
  return index >= 0 ? { refused: 'tool', index } : undefined;
}

/**
 * The PostgreSQL AgentStore: the same contract as the SQLite one (test/stores/contracts/agents.ts).
 * A write checks the secret and tools it names in its transaction and keeps them from being
 * deleted until it commits; an update applies only over the version read (the agent's row is
 * locked, so of two updates over one version the second finds a conflict). Deleting an agent
 * deletes its client keys by a cascade: the client keys' change notice goes with it.
 */
export function createPgAgentStore(h: PgDatabase): AgentStore {
  return {
    async get(userId, id) {
      const r = (await byUser<RawAgentRow>(h.pool, [id, userId])).rows[0];
      return r && fromRaw(r);
    },
    async list(userId, limit, cursor) {
      const res = cursor ? await nextPage<RawAgentRow>(h.pool, [userId, cursor.createdAt, cursor.id, limit]) : await firstPage<RawAgentRow>(h.pool, [userId, limit]);
      return res.rows.map(fromRaw);
    },
    create: (row) =>
      withTx(h.pool, async (c): Promise<AgentRow | AgentRefusal> => {
        const refused = await refusal(c, row.userId, row);
        if (refused) return refused;
        await insert(c, [row.id, row.userId, row.body, row.secretId, row.voice, row.version, row.createdAt, row.modifiedAt]);
        if (row.toolIds.length > 0) await insertTools(c, [row.id, row.toolIds]);
        return row;
      }),
    update: (userId, id, version, v, modifiedAt) =>
      withTx(h.pool, async (c): Promise<AgentUpdate> => {
        if ((await lockAgent(c, [id, userId])).rowCount === 0) return 'not_found';
        const refused = await refusal(c, userId, v);
        if (refused) return refused;
        const updated = (await update<StoredAgentRow>(c, [v.body, v.secretId, v.voice, modifiedAt, id, userId, version])).rows[0];
        if (!updated) return 'conflict';
        await clearTools(c, [id]);
        if (v.toolIds.length > 0) await insertTools(c, [id, v.toolIds]);
        return toRow(updated, [...v.toolIds]);
      }),
    delete: (userId, id) =>
      withTx(h.pool, async (c) => {
        const r = (await remove<RawAgentRow>(c, [id, userId])).rows[0];
        if (!r) return undefined;
        // Sent at the commit, with the cascade it tells of.
        await h.changes.announce(CLIENT_KEYS_TOPIC, undefined, c);
        return fromRaw(r);
      }),
  };
}

/** The AgentStore on the database's dialect. */
export const agentStoreOn = (database: Database): AgentStore => onDialect(database, { sqlite: createSqliteAgentStore, postgres: createPgAgentStore });
