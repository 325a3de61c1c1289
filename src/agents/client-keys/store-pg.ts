import type pg from 'pg';
import type { PgDatabase } from '../../db/pg/database.ts';
import { statement, withTx } from '../../db/pg/tx.ts';
import { pgCommitWatch } from '../../db/pg/changes.ts';
import type { ClientKeyOwner } from '../../platform/caller.ts';
import { createSqliteClientKeyStore, toRow, type ClientKeyStore, type Raw } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/**
 * The change topic of client keys (src/db/pg/changes.ts): every write that can change what
 * `ownerOfClientKey` answers announces it at its commit, deleting an agent (whose keys go by a
 * cascade) included, so every process's verifier forgets the keys it remembered.
 */
export const CLIENT_KEYS_TOPIC = 'client_keys';

// Held until the commit: two creates for one agent take turns, so neither counts past `max`.
const lockAgent = statement('client_keys_lock_agent', 'SELECT 1 FROM agents WHERE id = $1 AND user_id = $2 FOR NO KEY UPDATE');
const countActive = statement('client_keys_count_active', 'SELECT count(*)::int AS n FROM client_keys WHERE agent_id = $1 AND revoked_at IS NULL');
const insert = statement(
  'client_keys_insert',
  'INSERT INTO client_keys (id, user_id, agent_id, hash, prefix, name, allowed_origins, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
);
const selectList = statement(
  'client_keys_list',
  `SELECT id, user_id, agent_id, prefix, name, allowed_origins, created_at FROM client_keys
   WHERE agent_id = $1 AND user_id = $2 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
);
const update = statement(
  'client_keys_update',
  `UPDATE client_keys SET allowed_origins = coalesce($1, allowed_origins), name = CASE WHEN $2::boolean THEN $3 ELSE name END
   WHERE id = $4 AND agent_id = $5 AND user_id = $6 AND revoked_at IS NULL`,
);
const revoke = statement('client_keys_revoke', 'UPDATE client_keys SET revoked_at = $1 WHERE id = $2 AND agent_id = $3 AND user_id = $4 AND revoked_at IS NULL');
const selectOwner = statement(
  'client_keys_owner',
  `SELECT k.id, k.agent_id, k.user_id, k.allowed_origins, u.name, u.permissions
   FROM client_keys k JOIN agents a ON a.id = k.agent_id AND a.user_id = k.user_id JOIN users u ON u.id = k.user_id
   WHERE k.hash = $1 AND k.revoked_at IS NULL`,
);

/**
 * Client keys on PostgreSQL: the same contract as the SQLite store (test/stores/contracts/client-keys.ts).
 * `clientKeysVersion` moves at once on this process's writes and, in every other process, when
 * its notice arrives (LISTEN/NOTIFY, sent at the write's commit); while a process's listening
 * connection is down it moves on every call, so nothing remembered is trusted.
 */
export function createPgClientKeyStore(h: PgDatabase): ClientKeyStore {
  const { pool } = h;
  const watch = pgCommitWatch(h.changes, CLIENT_KEYS_TOPIC);
  /** Runs a write and its notice in one transaction: the notice goes at the commit, never without it. */
  const announced = <T>(write: (c: pg.PoolClient) => Promise<T>, changed: (out: T) => boolean) =>
    withTx(pool, async (c) => {
      const out = await write(c);
      if (changed(out)) await h.changes.announce(CLIENT_KEYS_TOPIC, undefined, c);
      return out;
    });

  return {
    create: (k, max) =>
      announced(
        async (c): Promise<'created' | 'no_agent' | 'full'> => {
          if ((await lockAgent(c, [k.agentId, k.userId])).rowCount === 0) return 'no_agent';
          if ((await countActive<{ n: number }>(c, [k.agentId])).rows[0]!.n >= max) return 'full';
          await insert(c, [k.id, k.userId, k.agentId, k.hash, k.prefix, k.name, JSON.stringify(k.origins), k.createdAt]);
          return 'created';
        },
        (out) => out === 'created',
      ),
    async list(userId, agentId) {
      return (await selectList<Raw>(pool, [agentId, userId])).rows.map(toRow);
    },
    update: (userId, agentId, id, change) =>
      announced(
        async (c) =>
          ((await update(c, [change.origins ? JSON.stringify(change.origins) : null, change.name !== undefined, change.name ?? null, id, agentId, userId])).rowCount ?? 0) > 0,
        (found) => found,
      ),
    revoke: (userId, agentId, id, now) =>
      announced(async (c) => ((await revoke(c, [now, id, agentId, userId])).rowCount ?? 0) > 0, (found) => found),
    async ownerOfClientKey(hash): Promise<ClientKeyOwner | undefined> {
      const row = (await selectOwner<{ id: string; agent_id: string; user_id: string; allowed_origins: string; name: string | null; permissions: string }>(pool, [hash])).rows[0];
      return row && {
        clientKeyId: row.id, agentId: row.agent_id, userId: row.user_id, name: row.name,
        permissions: JSON.parse(row.permissions) as string[], origins: JSON.parse(row.allowed_origins) as string[],
      };
    },
    async clientKeysVersion() {
      return watch.version();
    },
  };
}

/** The ClientKeyStore on the database's dialect. */
export const clientKeyStoreOn = (database: Database): ClientKeyStore => onDialect(database, { sqlite: createSqliteClientKeyStore, postgres: createPgClientKeyStore });
