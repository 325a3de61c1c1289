import type { PgDatabase } from '../../db/pg/database.ts';
import { statement } from '../../db/pg/tx.ts';
import { createWorkerTokenStore, type WorkerRow, type WorkerTokenStore } from './token-store.ts';
import { onDialect, type Database } from '../../db/database.ts';

/** The `compute_workers` table on PostgreSQL: the same contract as ./token-store.ts. */

const insert = statement('compute_workers.insert', `INSERT INTO compute_workers (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)`);
const all = statement('compute_workers.all', `SELECT id, name, created_at, last_seen_at, revoked_at FROM compute_workers ORDER BY created_at DESC, id DESC`);
const revoke = statement('compute_workers.revoke', `UPDATE compute_workers SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`);
const byHash = statement('compute_workers.by_hash', `SELECT id, name, last_seen_at FROM compute_workers WHERE token_hash = $1 AND revoked_at IS NULL`);
const seen = statement('compute_workers.seen', `UPDATE compute_workers SET last_seen_at = $1 WHERE id = $2`);

export function createPgWorkerTokenStore(h: PgDatabase): WorkerTokenStore {
  const { pool } = h;
  return {
    insert: async (id, name, hash, now) => void (await insert(pool, [id, name, hash, now])),
    list: async () => (await all<WorkerRow>(pool)).rows,
    revoke: async (id, now) => ((await revoke(pool, [now, id])).rowCount ?? 0) > 0,
    activeByHash: async (hash) => (await byHash<Pick<WorkerRow, 'id' | 'name' | 'last_seen_at'>>(pool, [hash])).rows[0],
    noteSeen: async (id, now) => void (await seen(pool, [now, id])),
  };
}

/** The WorkerTokenStore on the database's dialect. */
export const workerTokenStoreOn = (database: Database): WorkerTokenStore => onDialect(database, { sqlite: createWorkerTokenStore, postgres: createPgWorkerTokenStore });
