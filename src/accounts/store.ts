import type { Store } from '../db/client.ts';
import { watchCommits } from '../db/commit-watch.ts';

/**
 * The accounts' rows: people's emails and password hashes, studio sessions (by the HMAC of
 * their cookie token), one-time invite and reset tokens (by HMAC), token signing keys (the
 * private half sealed) and sign-in failure counters. Every statement is prepared once; the
 * counters and one-time tokens change only through conditional statements, so two processes
 * on one database agree.
 */
export interface AccountStore {
  /** False when the email is taken, the user has an account already, or there is no such user. */
  createAccount(a: { userId: string; email: string; passwordHash: string | null; createdAt: number }): Promise<boolean>;
  byEmail(email: string): Promise<AccountRow | undefined>;
  byUser(userId: string): Promise<AccountRow | undefined>;
  setPassword(userId: string, hash: string, now: number): Promise<boolean>;

  createSession(s: NewSession): Promise<void>;
  /** A session that is not revoked, with its person; expiry is the caller's to judge. */
  sessionByTokenHash(hash: string): Promise<SessionRow | undefined>;
  /** Moves last_seen_at when it is older than `before`. */
  touchSession(id: string, now: number, before: number): Promise<void>;
  /** Revokes a live session (of `userId` when given); false when none matched. */
  revokeSession(id: string, now: number, userId?: string): Promise<boolean>;
  /** Revokes every live session of the user but `except`; the number revoked. */
  revokeOtherSessions(userId: string, except: string | null, now: number): Promise<number>;
  /** Live sessions, newest first. */
  listSessions(userId: string, now: number): Promise<SessionRow[]>;

  /** The caller behind a token's `sid`: a live session, or an active API key; with the user's permissions now. */
  ownerOfSid(sid: string, now: number, idleBefore: number): Promise<SidOwner | undefined>;

  createAccountToken(t: { id: string; userId: string; kind: 'invite' | 'reset'; tokenHash: string; createdAt: number; expiresAt: number }): Promise<void>;
  /** Uses a one-time token once: its user and kind, or undefined (unknown, used, expired). */
  useAccountToken(hash: string, now: number): Promise<{ userId: string; kind: 'invite' | 'reset' } | undefined>;

  signingKeys(): Promise<SigningKeyRow[]>;
  /** Inserts the key unless one created after `newerThan` exists (two processes rotate once); true when inserted. */
  addSigningKeyUnlessNewer(k: SigningKeyRow, newerThan: number): Promise<boolean>;
  dropSigningKeysBefore(createdBefore: number): Promise<void>;

  /** One failure more in the bucket's window (a new window when the last one ended): the count now. */
  addFailure(bucket: string, now: number, windowMs: number): Promise<{ failures: number; windowStartedAt: number }>;
  /** The bucket's failures in its current window (0 when none or when the window ended). */
  failures(bucket: string, now: number, windowMs: number): Promise<{ failures: number; windowStartedAt: number }>;
  clearFailures(bucket: string): Promise<void>;

  /** Moves whenever what ownerOfSid answers may have changed (this store's writes, or another connection's commit). */
  version(): Promise<number>;
}

export interface AccountRow {
  userId: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  createdAt: number;
}

export interface NewSession {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  userAgent: string | null;
  address: string | null;
}

export interface SessionRow extends NewSession {
  email: string;
  name: string | null;
  lastSeenAt: number;
}

export interface SidOwner {
  userId: string;
  name: string | null;
  permissions: string[];
}

export interface SigningKeyRow {
  kid: string;
  alg: string;
  publicJwk: string;
  privateJwk: string;
  createdAt: number;
}

/** A studio_sessions row joined with its account and user, as SQL returns it (both dialects). */
export interface SessionDbRow {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  user_agent: string | null;
  address: string | null;
  email: string;
  name: string | null;
}

export const session = (r: SessionDbRow): SessionRow => ({
  id: r.id,
  userId: r.user_id,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
  userAgent: r.user_agent,
  address: r.address,
  email: r.email,
  name: r.name,
});

export function createSqliteAccountStore({ sqlite }: Store): AccountStore {
  const insertAccount = sqlite.prepare<[string, string | null, number | null, number, string]>(
    `INSERT INTO accounts (user_id, email, password_hash, password_changed_at, created_at) SELECT id, ?, ?, ?, ? FROM users WHERE id = ?
     ON CONFLICT DO NOTHING`,
  );
  const accountCols = 'a.user_id, a.email, u.name, a.password_hash, a.created_at FROM accounts a JOIN users u ON u.id = a.user_id';
  type AccountDbRow = { user_id: string; email: string; name: string | null; password_hash: string | null; created_at: number };
  const selectByEmail = sqlite.prepare<[string], AccountDbRow>(`SELECT ${accountCols} WHERE a.email = ?`);
  const selectByUser = sqlite.prepare<[string], AccountDbRow>(`SELECT ${accountCols} WHERE a.user_id = ?`);
  const updatePassword = sqlite.prepare<[string, number, string]>('UPDATE accounts SET password_hash = ?, password_changed_at = ? WHERE user_id = ?');
  const account = (r: AccountDbRow): AccountRow => ({ userId: r.user_id, email: r.email, name: r.name, passwordHash: r.password_hash, createdAt: r.created_at });

  const insertSession = sqlite.prepare<[string, string, string, number, number, number, string | null, string | null]>(
    `INSERT INTO studio_sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at, user_agent, address)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const sessionCols = `s.id, s.user_id, s.token_hash, s.created_at, s.last_seen_at, s.expires_at, s.user_agent, s.address, a.email, u.name
    FROM studio_sessions s JOIN accounts a ON a.user_id = s.user_id JOIN users u ON u.id = s.user_id`;
  const selectSession = sqlite.prepare<[string], SessionDbRow>(`SELECT ${sessionCols} WHERE s.token_hash = ? AND s.revoked_at IS NULL`);
  const selectSessions = sqlite.prepare<[string, number], SessionDbRow>(
    `SELECT ${sessionCols} WHERE s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? ORDER BY s.created_at DESC, s.id DESC`,
  );
  const touch = sqlite.prepare<[number, string, number]>('UPDATE studio_sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?');
  const revoke = sqlite.prepare<[number, string]>('UPDATE studio_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const revokeOwn = sqlite.prepare<[number, string, string]>('UPDATE studio_sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL');
  const revokeOthers = sqlite.prepare<[number, string, string]>(
    'UPDATE studio_sessions SET revoked_at = ? WHERE user_id = ? AND id <> ? AND revoked_at IS NULL',
  );
  type OwnerDbRow = { user_id: string; name: string | null; permissions: string };
  const sessionOwner = sqlite.prepare<[string, number, number], OwnerDbRow>(
    `SELECT u.id AS user_id, u.name, u.permissions FROM studio_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND s.last_seen_at > ?`,
  );
  // A token exchanged for an API key lives only while the key does (the users capability's table, read here in one indexed select).
  const keyOwner = sqlite.prepare<[string], OwnerDbRow>(
    'SELECT u.id AS user_id, u.name, u.permissions FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = ? AND k.revoked_at IS NULL',
  );

  const insertToken = sqlite.prepare<[string, string, string, string, number, number]>(
    'INSERT INTO account_tokens (id, user_id, kind, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const useToken = sqlite.prepare<[number, string, number], { user_id: string; kind: 'invite' | 'reset' }>(
    'UPDATE account_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id, kind',
  );

  type KeyDbRow = { kid: string; alg: string; public_jwk: string; private_jwk: string; created_at: number };
  const selectKeys = sqlite.prepare<[], KeyDbRow>('SELECT kid, alg, public_jwk, private_jwk, created_at FROM signing_keys ORDER BY created_at DESC, kid DESC');
  const insertKey = sqlite.prepare<[string, string, string, string, number, number]>(
    `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, created_at) SELECT ?, ?, ?, ?, ?
     WHERE NOT EXISTS (SELECT 1 FROM signing_keys WHERE created_at > ?)`,
  );
  const dropKeys = sqlite.prepare<[number]>('DELETE FROM signing_keys WHERE created_at < ?');

  // A window that ended starts over at 1; otherwise one more. One statement: no read-then-write race.
  const bump = sqlite.prepare<[{ bucket: string; now: number; window: number }], { failures: number; window_started_at: number }>(
    `INSERT INTO sign_in_attempts (bucket, failures, window_started_at) VALUES (@bucket, 1, @now)
     ON CONFLICT(bucket) DO UPDATE SET
       failures = CASE WHEN window_started_at <= @now - @window THEN 1 ELSE failures + 1 END,
       window_started_at = CASE WHEN window_started_at <= @now - @window THEN @now ELSE window_started_at END
     RETURNING failures, window_started_at`,
  );
  const selectFailures = sqlite.prepare<[string], { failures: number; window_started_at: number }>(
    'SELECT failures, window_started_at FROM sign_in_attempts WHERE bucket = ?',
  );
  const clear = sqlite.prepare<[string]>('DELETE FROM sign_in_attempts WHERE bucket = ?');

  // Another connection's commit (looked for at most once per millisecond, as the users
  // store does) or this store's own session changes move the version.
  const commits = watchCommits(sqlite);
  const changed = commits.changed;

  return {
    async createAccount(a) {
      const res = insertAccount.run(a.email, a.passwordHash, a.passwordHash === null ? null : a.createdAt, a.createdAt, a.userId);
      return res.changes > 0;
    },
    async byEmail(email) {
      const r = selectByEmail.get(email);
      return r && account(r);
    },
    async byUser(userId) {
      const r = selectByUser.get(userId);
      return r && account(r);
    },
    async setPassword(userId, hash, now) {
      return updatePassword.run(hash, now, userId).changes > 0;
    },
    async createSession(s) {
      insertSession.run(s.id, s.userId, s.tokenHash, s.createdAt, s.createdAt, s.expiresAt, s.userAgent, s.address);
    },
    async sessionByTokenHash(hash) {
      const r = selectSession.get(hash);
      return r && session(r);
    },
    async touchSession(id, now, before) {
      touch.run(now, id, before);
    },
    async revokeSession(id, now, userId) {
      const res = userId === undefined ? revoke.run(now, id) : revokeOwn.run(now, id, userId);
      changed();
      return res.changes > 0;
    },
    async revokeOtherSessions(userId, except, now) {
      const res = revokeOthers.run(now, userId, except ?? '');
      changed();
      return res.changes;
    },
    async listSessions(userId, now) {
      return selectSessions.all(userId, now).map(session);
    },
    async ownerOfSid(sid, now, idleBefore) {
      const r = sid.startsWith('ses_') ? sessionOwner.get(sid, now, idleBefore) : keyOwner.get(sid);
      return r && { userId: r.user_id, name: r.name, permissions: JSON.parse(r.permissions) as string[] };
    },
    async createAccountToken(t) {
      insertToken.run(t.id, t.userId, t.kind, t.tokenHash, t.createdAt, t.expiresAt);
    },
    async useAccountToken(hash, now) {
      const r = useToken.get(now, hash, now);
      return r && { userId: r.user_id, kind: r.kind };
    },
    async signingKeys() {
      return selectKeys.all().map((r) => ({ kid: r.kid, alg: r.alg, publicJwk: r.public_jwk, privateJwk: r.private_jwk, createdAt: r.created_at }));
    },
    async addSigningKeyUnlessNewer(k, newerThan) {
      return insertKey.run(k.kid, k.alg, k.publicJwk, k.privateJwk, k.createdAt, newerThan).changes > 0;
    },
    async dropSigningKeysBefore(createdBefore) {
      dropKeys.run(createdBefore);
    },
    async addFailure(bucket, now, windowMs) {
      const r = bump.get({ bucket, now, window: windowMs })!;
      return { failures: r.failures, windowStartedAt: r.window_started_at };
    },
    async failures(bucket, now, windowMs) {
      const r = selectFailures.get(bucket);
      if (!r || r.window_started_at <= now - windowMs) return { failures: 0, windowStartedAt: now };
      return { failures: r.failures, windowStartedAt: r.window_started_at };
    },
    async clearFailures(bucket) {
      clear.run(bucket);
    },
    async version() {
      return commits.version();
    },
  };
}
