import type { Store } from '../../db/client.ts';
import type { OAuthConnectionRow } from '../../db/schema.ts';
import { auditWriter, type AuditRecord } from '../../audit/contract.ts';

export type ConnectionStatus = OAuthConnectionRow['status'];
/** The states an attempt ends in without a secret. */
export type FailedStatus = Extract<ConnectionStatus, 'denied' | 'failed' | 'expired'>;

/**
 * The attempts to connect an account. The callback claims an attempt with one conditional
 * UPDATE ... RETURNING (pending, not expired, this state): of two callbacks with the same
 * state, exactly one gets the row. Every end of an attempt empties its sealed values.
 */
export interface ConnectionStore {
  create(row: OAuthConnectionRow): Promise<void>;
  get(userId: string, id: string): Promise<OAuthConnectionRow | undefined>;
  /** pending -> exchanging, for the attempt of this state hash if it has not expired at `now`; undefined otherwise. */
  claim(stateHash: string, now: number): Promise<OAuthConnectionRow | undefined>;
  /** The attempt of a state hash whatever its status: why a claim failed (unknown, used, expired). */
  byState(stateHash: string): Promise<OAuthConnectionRow | undefined>;
  /** exchanging -> connected with the secret it made; false when the attempt was not exchanging. */
  finishConnected(id: string, secretId: string, now: number, audit: AuditRecord): Promise<boolean>;
  /** pending|exchanging -> a failed status; false when the attempt had already ended. */
  finishFailed(id: string, status: FailedStatus, errorCode: string, now: number, audit: AuditRecord): Promise<boolean>;
  /**
   * Housekeeping: pending attempts past `expires_at` end `expired`, attempts still exchanging
   * `stuckMs` after it (their process died) end `failed`/`interrupted`, both with sealed values
   * emptied; attempts ended before `deleteBefore` are deleted.
   */
  sweep(now: number, stuckMs: number, deleteBefore: number): Promise<{ ended: number; deleted: number }>;
}

/** An `oauth_connections` row as SQL returns it (both dialects). */
export type Raw = {
  id: string;
  user_id: string;
  state_hash: string;
  status: ConnectionStatus;
  provider: string;
  issuer: string | null;
  metadata: string | null;
  authorization_url: string;
  token_url: string;
  client_id: string;
  scopes: string;
  auth_method: OAuthConnectionRow['authMethod'];
  sealed: string;
  target_secret_id: string | null;
  result_secret_id: string | null;
  error_code: string | null;
  created_at: number;
  expires_at: number;
  finished_at: number | null;
};

const toRow = (r: Raw): OAuthConnectionRow => ({
  id: r.id, userId: r.user_id, stateHash: r.state_hash, status: r.status, provider: r.provider, issuer: r.issuer, metadata: r.metadata,
  authorizationUrl: r.authorization_url, tokenUrl: r.token_url, clientId: r.client_id, scopes: r.scopes, authMethod: r.auth_method,
  sealed: r.sealed, targetSecretId: r.target_secret_id, resultSecretId: r.result_secret_id, errorCode: r.error_code,
  createdAt: r.created_at, expiresAt: r.expires_at, finishedAt: r.finished_at,
});
export const maybe = (r: Raw | undefined) => (r ? toRow(r) : undefined);

export function createSqliteConnectionStore(handle: Store): ConnectionStore {
  const { sqlite } = handle;
  const audit = auditWriter(sqlite);
  const insert = sqlite.prepare(
    `INSERT INTO oauth_connections (id, user_id, state_hash, status, provider, issuer, metadata, authorization_url, token_url, client_id, scopes, auth_method,
       sealed, target_secret_id, result_secret_id, error_code, created_at, expires_at, finished_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byUser = sqlite.prepare<[string, string], Raw>('SELECT * FROM oauth_connections WHERE id = ? AND user_id = ?');
  const byState = sqlite.prepare<[string], Raw>('SELECT * FROM oauth_connections WHERE state_hash = ?');
  const claim = sqlite.prepare<[string, number], Raw>(
    `UPDATE oauth_connections SET status = 'exchanging' WHERE state_hash = ? AND status = 'pending' AND expires_at > ? RETURNING *`,
  );
  const connected = sqlite.prepare<[string, number, string]>(
    `UPDATE oauth_connections SET status = 'connected', result_secret_id = ?, finished_at = ?, sealed = '[]' WHERE id = ? AND status = 'exchanging'`,
  );
  const failed = sqlite.prepare<[FailedStatus, string, number, string]>(
    `UPDATE oauth_connections SET status = ?, error_code = ?, finished_at = ?, sealed = '[]' WHERE id = ? AND status IN ('pending', 'exchanging')`,
  );
  const expirePending = sqlite.prepare<[number, number]>(
    `UPDATE oauth_connections SET status = 'expired', error_code = 'expired', finished_at = ?, sealed = '[]' WHERE status = 'pending' AND expires_at <= ?`,
  );
  const failStuck = sqlite.prepare<[number, number]>(
    `UPDATE oauth_connections SET status = 'failed', error_code = 'interrupted', finished_at = ?, sealed = '[]' WHERE status = 'exchanging' AND expires_at <= ?`,
  );
  const deleteEnded = sqlite.prepare<[number]>('DELETE FROM oauth_connections WHERE finished_at IS NOT NULL AND finished_at < ?');
  const sweep = sqlite.transaction((now: number, stuckMs: number, deleteBefore: number) => {
    const ended = expirePending.run(now, now).changes + failStuck.run(now, now - stuckMs).changes;
    return { ended, deleted: deleteEnded.run(deleteBefore).changes };
  });
  const finishConnected = sqlite.transaction((id: string, secretId: string, now: number, record: AuditRecord) => {
    if (connected.run(secretId, now, id).changes === 0) return false;
    audit(record);
    return true;
  });
  const finishFailed = sqlite.transaction((id: string, status: FailedStatus, code: string, now: number, record: AuditRecord) => {
    if (failed.run(status, code, now, id).changes === 0) return false;
    audit(record);
    return true;
  });
  return {
    create: async (r) => {
      insert.run(
        r.id, r.userId, r.stateHash, r.status, r.provider, r.issuer, r.metadata, r.authorizationUrl, r.tokenUrl, r.clientId, r.scopes, r.authMethod,
        r.sealed, r.targetSecretId, r.resultSecretId, r.errorCode, r.createdAt, r.expiresAt, r.finishedAt,
      );
    },
    get: async (userId, id) => maybe(byUser.get(id, userId)),
    claim: async (stateHash, now) => maybe(claim.get(stateHash, now)),
    byState: async (stateHash) => maybe(byState.get(stateHash)),
    finishConnected: async (id, secretId, now, record) => finishConnected(id, secretId, now, record),
    finishFailed: async (id, status, code, now, record) => finishFailed(id, status, code, now, record),
    sweep: async (now, stuckMs, deleteBefore) => sweep(now, stuckMs, deleteBefore),
  };
}
