import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { onDialect, type Database } from '../db/database.ts';
import { KEYS_TOPIC } from '../users/contract.ts';
import { createSqliteAccountStore, session, type AccountRow, type AccountStore, type SessionDbRow } from './store.ts';

/** The change-notice topic of studio sessions (a sign-out, a revocation from the session list or by a password reset). */
export const SESSIONS_TOPIC = 'sessions';

type AccountDbRow = { user_id: string; email: string; name: string | null; password_hash: string | null; created_at: number };
type OwnerDbRow = { user_id: string; name: string | null; permissions: string };
type SigningKeyDbRow = { kid: string; alg: string; public_jwk: string; private_jwk: string; created_at: number };
type FailuresDbRow = { failures: number; window_started_at: number };

const account = (r: AccountDbRow): AccountRow => ({ userId: r.user_id, email: r.email, name: r.name, passwordHash: r.password_hash, createdAt: r.created_at });
const insertAccount = statement(
  'accounts_create',
  `INSERT INTO accounts (user_id, email, password_hash, password_changed_at, created_at) SELECT id, $1::text, $2::text, $3::bigint, $4::bigint FROM users WHERE id = $5
   ON CONFLICT DO NOTHING`,
);
const ACCOUNT_COLS = 'a.user_id, a.email, u.name, a.password_hash, a.created_at FROM accounts a JOIN users u ON u.id = a.user_id';
const selectByEmail = statement('accounts_by_email', `SELECT ${ACCOUNT_COLS} WHERE a.email = $1`);
const selectByUser = statement('accounts_by_user', `SELECT ${ACCOUNT_COLS} WHERE a.user_id = $1`);
const updatePassword = statement('accounts_set_password', 'UPDATE accounts SET password_hash = $1, password_changed_at = $2 WHERE user_id = $3');

const insertSession = statement(
  'accounts_create_session',
  `INSERT INTO studio_sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at, user_agent, address) VALUES ($1, $2, $3, $4, $4, $5, $6, $7)`,
);
const SESSION_COLS = `s.id, s.user_id, s.token_hash, s.created_at, s.last_seen_at, s.expires_at, s.user_agent, s.address, a.email, u.name
  FROM studio_sessions s JOIN accounts a ON a.user_id = s.user_id JOIN users u ON u.id = s.user_id`;
const selectSession = statement('accounts_session', `SELECT ${SESSION_COLS} WHERE s.token_hash = $1 AND s.revoked_at IS NULL`);
const selectSessions = statement(
  'accounts_sessions',
  `SELECT ${SESSION_COLS} WHERE s.user_id = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 ORDER BY s.created_at DESC, s.id DESC`,
);
const touch = statement('accounts_touch_session', 'UPDATE studio_sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < $3');
const revoke = statement('accounts_revoke_session', 'UPDATE studio_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL');
const revokeOwn = statement('accounts_revoke_own_session', 'UPDATE studio_sessions SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL');
const revokeOthers = statement('accounts_revoke_other_sessions', 'UPDATE studio_sessions SET revoked_at = $1 WHERE user_id = $2 AND id <> $3 AND revoked_at IS NULL');
const sessionOwner = statement(
  'accounts_session_owner',
  `SELECT u.id AS user_id, u.name, u.permissions FROM studio_sessions s JOIN users u ON u.id = s.user_id
   WHERE s.id = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND s.last_seen_at > $3`,
);
// A token exchanged for an API key lives only while the key does (the users capability's table, read here in one indexed select).
const keyOwner = statement(
  'accounts_key_owner',
  'SELECT u.id AS user_id, u.name, u.permissions FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = $1 AND k.revoked_at IS NULL',
);

const insertToken = statement(
  'accounts_create_token',
  'INSERT INTO account_tokens (id, user_id, kind, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
);
// Used once: of two requests with the same token, the second finds used_at set (checked again on the committed row).
const useToken = statement(
  'accounts_use_token',
  'UPDATE account_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id, kind',
);

const selectSigningKeys = statement('accounts_signing_keys', 'SELECT kid, alg, public_jwk, private_jwk, created_at FROM signing_keys ORDER BY created_at DESC, kid DESC');
/** Taken (for its transaction) by every process that adds a signing key: of two rotating at once, the second sees the first's key. */
export const SIGNING_KEY_LOCK = 0x6d696d696301;
const lockSigningKeys = statement('accounts_lock_signing_keys', 'SELECT pg_advisory_xact_lock($1)');
const insertSigningKey = statement(
  'accounts_add_signing_key',
  `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, created_at) SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint
   WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE created_at > $6)`,
);
const dropSigningKeys = statement('accounts_drop_signing_keys', 'DELETE FROM signing_keys WHERE created_at < $1');

// A window that ended starts over at 1; otherwise one more. One statement: no read-then-write race.
const bump = statement(
  'accounts_add_failure',
  `INSERT INTO sign_in_attempts AS a (bucket, failures, window_started_at) VALUES ($1, 1, $2)
   ON CONFLICT (bucket) DO UPDATE SET
     failures = CASE WHEN a.window_started_at <= $2 - $3::bigint THEN 1 ELSE a.failures + 1 END,
     window_started_at = CASE WHEN a.window_started_at <= $2 - $3::bigint THEN $2 ELSE a.window_started_at END
   RETURNING failures, window_started_at`,
);
const selectFailures = statement('accounts_failures', 'SELECT failures, window_started_at FROM sign_in_attempts WHERE bucket = $1');
const clear = statement('accounts_clear_failures', 'DELETE FROM sign_in_attempts WHERE bucket = $1');

/**
 * The AccountStore on PostgreSQL. Session revocations are announced on the `sessions` topic
 * (LISTEN/NOTIFY, src/db/pg/changes.ts); `version()` moves with it and with the API keys' topic
 * (what `ownerOfSid` reads), and at every call while the listening connection is down.
 */
export function createPgAccountStore(h: PgDatabase): AccountStore {
  const { pool, changes } = h;
  // Awaited: a command that signs people out and exits must have told the other processes first.
  const changed = () => changes.announce(SESSIONS_TOPIC);
  const owner = (r: OwnerDbRow | undefined) => r && { userId: r.user_id, name: r.name, permissions: JSON.parse(r.permissions) as string[] };

  return {
    async createAccount(a) {
      const res = await insertAccount(pool, [a.email, a.passwordHash, a.passwordHash === null ? null : a.createdAt, a.createdAt, a.userId]);
      return (res.rowCount ?? 0) > 0;
    },
    async byEmail(email) {
      const r = (await selectByEmail<AccountDbRow>(pool, [email])).rows[0];
      return r && account(r);
    },
    async byUser(userId) {
      const r = (await selectByUser<AccountDbRow>(pool, [userId])).rows[0];
      return r && account(r);
    },
    async setPassword(userId, hash, now) {
      return ((await updatePassword(pool, [hash, now, userId])).rowCount ?? 0) > 0;
    },
    async createSession(s) {
      await insertSession(pool, [s.id, s.userId, s.tokenHash, s.createdAt, s.expiresAt, s.userAgent, s.address]);
    },
    async sessionByTokenHash(hash) {
      const r = (await selectSession<SessionDbRow>(pool, [hash])).rows[0];
      return r && session(r);
    },
    async touchSession(id, now, before) {
      await touch(pool, [now, id, before]);
    },
    async revokeSession(id, now, userId) {
      const res = userId === undefined ? await revoke(pool, [now, id]) : await revokeOwn(pool, [now, id, userId]);
      await changed();
      return (res.rowCount ?? 0) > 0;
    },
    async revokeOtherSessions(userId, except, now) {
      const res = await revokeOthers(pool, [now, userId, except ?? '']);
      await changed();
      return res.rowCount ?? 0;
    },
    async listSessions(userId, now) {
      return (await selectSessions<SessionDbRow>(pool, [userId, now])).rows.map(session);
    },
    async ownerOfSid(sid, now, idleBefore) {
      const res = sid.startsWith('ses_') ? await sessionOwner<OwnerDbRow>(pool, [sid, now, idleBefore]) : await keyOwner<OwnerDbRow>(pool, [sid]);
      return owner(res.rows[0]);
    },
    async createAccountToken(t) {
      await insertToken(pool, [t.id, t.userId, t.kind, t.tokenHash, t.createdAt, t.expiresAt]);
    },
    async useAccountToken(hash, now) {
      const r = (await useToken<{ user_id: string; kind: 'invite' | 'reset' }>(pool, [now, hash])).rows[0];
      return r && { userId: r.user_id, kind: r.kind };
    },
    async signingKeys() {
      const rows = (await selectSigningKeys<SigningKeyDbRow>(pool)).rows;
      return rows.map((r) => ({ kid: r.kid, alg: r.alg, publicJwk: r.public_jwk, privateJwk: r.private_jwk, createdAt: r.created_at }));
    },
    async addSigningKeyUnlessNewer(k, newerThan) {
      // The NOT EXISTS of one statement does not see a key another transaction is adding: the lock orders them.
      return withTx(pool, async (c) => {
        await lockSigningKeys(c, [SIGNING_KEY_LOCK]);
        return ((await insertSigningKey(c, [k.kid, k.alg, k.publicJwk, k.privateJwk, k.createdAt, newerThan])).rowCount ?? 0) > 0;
      });
    },
    async dropSigningKeysBefore(createdBefore) {
      await dropSigningKeys(pool, [createdBefore]);
    },
    async addFailure(bucket, now, windowMs) {
      const r = (await bump<FailuresDbRow>(pool, [bucket, now, windowMs])).rows[0]!;
      return { failures: r.failures, windowStartedAt: r.window_started_at };
    },
    async failures(bucket, now, windowMs) {
      const r = (await selectFailures<FailuresDbRow>(pool, [bucket])).rows[0];
      if (!r || r.window_started_at <= now - windowMs) return { failures: 0, windowStartedAt: now };
      return { failures: r.failures, windowStartedAt: r.window_started_at };
    },
    async clearFailures(bucket) {
      await clear(pool, [bucket]);
    },
    async version() {
      // Each topic's version only grows (or, while nobody listens, is new at every call): so does the sum.
      return changes.version(SESSIONS_TOPIC) + changes.version(KEYS_TOPIC);
    },
  };
}

/** The AccountStore on the database's dialect. */
export const accountStoreOn = (database: Database): AccountStore => onDialect(database, { sqlite: createSqliteAccountStore, postgres: createPgAccountStore });
