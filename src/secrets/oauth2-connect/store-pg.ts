import type { PgDatabase } from '../../db/pg/database.ts';
import { statement, withTx } from '../../db/pg/tx.ts';
import { appendAudit } from '../../audit/contract.ts';
import { createSqliteConnectionStore, maybe, type ConnectionStore, type Raw } from './store.ts';
import { onDialect, type Database } from '../../db/database.ts';

const insert = statement(
  'oauth_connections_insert',
  `INSERT INTO oauth_connections (id, user_id, state_hash, status, provider, issuer, metadata, authorization_url, token_url, client_id, scopes, auth_method,
     sealed, target_secret_id, result_secret_id, error_code, created_at, expires_at, finished_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
);
const byUser = statement('oauth_connections_by_user', 'SELECT * FROM oauth_connections WHERE id = $1 AND user_id = $2');
const byState = statement('oauth_connections_by_state', 'SELECT * FROM oauth_connections WHERE state_hash = $1');
// One conditional UPDATE: of two callbacks with the same state, the second waits for the
// first's row lock, re-checks `status = 'pending'` on the row it committed, and gets nothing.
const claim = statement(
  'oauth_connections_claim',
  `UPDATE oauth_connections SET status = 'exchanging' WHERE state_hash = $1 AND status = 'pending' AND expires_at > $2 RETURNING *`,
);
const connected = statement(
  'oauth_connections_connected',
  `UPDATE oauth_connections SET status = 'connected', result_secret_id = $1, finished_at = $2, sealed = '[]' WHERE id = $3 AND status = 'exchanging'`,
);
const failed = statement(
  'oauth_connections_failed',
  `UPDATE oauth_connections SET status = $1, error_code = $2, finished_at = $3, sealed = '[]' WHERE id = $4 AND status IN ('pending', 'exchanging')`,
);
const expirePending = statement(
  'oauth_connections_expire_pending',
  `UPDATE oauth_connections SET status = 'expired', error_code = 'expired', finished_at = $1, sealed = '[]' WHERE status = 'pending' AND expires_at <= $1`,
);
const failStuck = statement(
  'oauth_connections_fail_stuck',
  `UPDATE oauth_connections SET status = 'failed', error_code = 'interrupted', finished_at = $1, sealed = '[]' WHERE status = 'exchanging' AND expires_at <= $2`,
);
const deleteEnded = statement('oauth_connections_delete_ended', 'DELETE FROM oauth_connections WHERE finished_at IS NOT NULL AND finished_at < $1');

/** The OAuth connect attempts on PostgreSQL: every change of status a conditional UPDATE, committed with its audit row. */
export function createPgConnectionStore(h: PgDatabase): ConnectionStore {
  const { pool } = h;
  return {
    create: async (r) => {
      await insert(pool, [
        r.id, r.userId, r.stateHash, r.status, r.provider, r.issuer, r.metadata, r.authorizationUrl, r.tokenUrl, r.clientId, r.scopes, r.authMethod,
        r.sealed, r.targetSecretId, r.resultSecretId, r.errorCode, r.createdAt, r.expiresAt, r.finishedAt,
      ]);
    },
    get: async (userId, id) => maybe((await byUser<Raw>(pool, [id, userId])).rows[0]),
    claim: async (stateHash, now) => maybe((await claim<Raw>(pool, [stateHash, now])).rows[0]),
    byState: async (stateHash) => maybe((await byState<Raw>(pool, [stateHash])).rows[0]),
    finishConnected: (id, secretId, now, record) =>
      withTx(pool, async (c) => {
        if ((await connected(c, [secretId, now, id])).rowCount === 0) return false;
        await appendAudit(c, record);
        return true;
      }),
    finishFailed: (id, status, code, now, record) =>
      withTx(pool, async (c) => {
        if ((await failed(c, [status, code, now, id])).rowCount === 0) return false;
        await appendAudit(c, record);
        return true;
      }),
    sweep: (now, stuckMs, deleteBefore) =>
      withTx(pool, async (c) => {
        const ended = ((await expirePending(c, [now])).rowCount ?? 0) + ((await failStuck(c, [now, now - stuckMs])).rowCount ?? 0);
        return { ended, deleted: (await deleteEnded(c, [deleteBefore])).rowCount ?? 0 };
      }),
  };
}

/** The ConnectionStore on the database's dialect. */
export const connectionStoreOn = (database: Database): ConnectionStore => onDialect(database, { sqlite: createSqliteConnectionStore, postgres: createPgConnectionStore });
