import type { Store } from '../db/client.ts';
import { COMMITS_RECHECK_MS, watchCommits } from '../db/commit-watch.ts';
import type { KeyOwner } from '../platform/caller.ts';
import type { PageCursor } from '../pagination.ts';

export type { KeyOwner };

/**
 * Users, their API keys and their credits. Every statement is prepared once when the store
 * is built; credits change only through conditional updates (never read-then-write), so two
 * processes on one database can never take a balance below zero.
 */
export interface UserStore {
  /** Inserts the user and its first API key in one transaction. */
  create(user: NewUser, firstKey: NewApiKey): Promise<void>;
  get(id: string): Promise<UserRecord | undefined>;
  /** Newest first. */
  list(): Promise<UserRecord[]>;
  /** False when there is no such user. */
  addKey(userId: string, key: NewApiKey): Promise<boolean>;
  /**
   * Adds a key unless the user already has `maxActive` active (unrevoked) keys: one
   * conditional insert, so two requests at once cannot pass the cap together.
   */
  addKeyWithin(userId: string, key: NewApiKey, maxActive: number): Promise<'added' | 'at-limit' | 'not-found'>;
  /** Newest first; hashes stay inside the store. */
  listKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** `limit` of the user's keys strictly after `cursor` in (created_at desc, id desc) order. */
  pageKeys(userId: string, limit: number, cursor: PageCursor | null): Promise<ApiKeyRecord[]>;
  /** One of the user's keys (revoked or not); undefined when the user has no key of that id. */
  getKey(userId: string, id: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Revokes an active key found by its id, by its hash, or by its id among one user's keys
   * (`{id, userId}`: another user's key is never touched); false when none matched.
   */
  revokeKey(by: { id: string; userId?: string } | { hash: string }, now: number): Promise<boolean>;
  /** The authentication hot path: one prepared, indexed select. */
  ownerOfKey(hash: string): Promise<KeyOwner | undefined>;
  /**
   * A number that differs from the one returned before whenever what `ownerOfKey` answers
   * may have changed since: at once for a change through this store, and for one through any
   * other connection or process (a key revoked by the CLI, say) from KEYS_RECHECK_MS after it
   * committed on SQLite, or once its change notice (KEYS_TOPIC) arrives on PostgreSQL (at every
   * call while this process's listening connection is down). Whoever remembers verified keys
   * drops them when it changes.
   */
  keysVersion(): Promise<number>;
  /**
   * Adds `amount` (negative takes credits away) unless the balance would drop below zero.
   * Charges and refunds are this same conditional update.
   */
  addCredits(userId: string, amount: number): Promise<CreditChange>;
  /** Sets the balance (an operator's correction); `credits` must not be negative. */
  setCredits(userId: string, credits: number): Promise<CreditChange>;
}

export interface UserRecord {
  id: string;
  name: string | null;
  credits: number;
  permissions: string[];
  createdAt: number;
}

export type NewUser = UserRecord;

export interface NewApiKey {
  id: string;
  /** The keyed hash of the API key (users/api-keys.ts); the key itself is never stored. */
  hash: string;
  prefix: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}


/** `insufficient`: the change would have made the balance negative, and nothing changed. */
export type CreditChange =
  | { status: 'ok'; credits: number }
  | { status: 'not-found' }
  | { status: 'insufficient'; credits: number };

/** A users row as SQL returns it (both dialects). */
export interface UserRow {
  id: string;
  name: string | null;
  credits: number;
  permissions: string;
  created_at: number;
}

/** An api_keys row as SQL returns it, without the hash. */
export interface KeyRow {
  id: string;
  user_id: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

export const keyRecord = (k: KeyRow): ApiKeyRecord => ({ id: k.id, userId: k.user_id, prefix: k.prefix, createdAt: k.created_at, revokedAt: k.revoked_at });

/** Callers validate their input; a negative balance reaching the store is a bug. */
export function nonNegative(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`credits must be a whole number >= 0, got ${credits}`);
}

export const record = (r: UserRow): UserRecord => ({
  id: r.id,
  name: r.name,
  credits: r.credits,
  permissions: JSON.parse(r.permissions) as string[],
  createdAt: r.created_at,
});

/**
 * How long after another connection or process commits a key change (a revocation by the
 * CLI) this process may still answer from what it remembered (src/db/commit-watch.ts). Its
 * own changes count at once.
 */
export const KEYS_RECHECK_MS = COMMITS_RECHECK_MS;

export function createSqliteUserStore({ sqlite }: Store): UserStore {
  const insertUser = sqlite.prepare<[string, string | null, number, string, number]>(
    'INSERT INTO users (id, name, credits, permissions, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertKey = sqlite.prepare<[string, string, string, number, string]>(
    'INSERT INTO api_keys (id, user_id, hash, prefix, created_at) SELECT ?, id, ?, ?, ? FROM users WHERE id = ?',
  );
  const selectUser = sqlite.prepare<[string], UserRow>('SELECT id, name, credits, permissions, created_at FROM users WHERE id = ?');
  const selectUsers = sqlite.prepare<[], UserRow>(
    'SELECT id, name, credits, permissions, created_at FROM users ORDER BY created_at DESC, id DESC',
  );
  const selectKeys = sqlite.prepare<[string], KeyRow>(
    'SELECT id, user_id, prefix, created_at, revoked_at FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC',
  );
  const insertKeyWithin = sqlite.prepare<[string, string, string, number, string, number]>(
    `INSERT INTO api_keys (id, user_id, hash, prefix, created_at) SELECT ?, u.id, ?, ?, ? FROM users u
     WHERE u.id = ? AND (SELECT count(*) FROM api_keys a WHERE a.user_id = u.id AND a.revoked_at IS NULL) < ?`,
  );
  const selectUserId = sqlite.prepare<[string], { id: string }>('SELECT id FROM users WHERE id = ?');
  const selectKeyPage = sqlite.prepare<[string, number, number, string, number], KeyRow>(
    `SELECT id, user_id, prefix, created_at, revoked_at FROM api_keys
     WHERE user_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?`,
  );
  const selectKey = sqlite.prepare<[string, string], KeyRow>('SELECT id, user_id, prefix, created_at, revoked_at FROM api_keys WHERE id = ? AND user_id = ?');
  const revokeById = sqlite.prepare<[number, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const revokeOwnById = sqlite.prepare<[number, string, string]>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL');
  const revokeByHash = sqlite.prepare<[number, string]>('UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL');
  const selectOwner = sqlite.prepare<[string], { key_id: string; user_id: string; name: string | null; permissions: string }>(
    `SELECT k.id AS key_id, u.id AS user_id, u.name, u.permissions FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.hash = ? AND k.revoked_at IS NULL`,
  );
  const addToBalance = sqlite.prepare<[number, string, number], { credits: number }>(
    'UPDATE users SET credits = credits + ? WHERE id = ? AND credits + ? >= 0 RETURNING credits',
  );
  const setBalance = sqlite.prepare<[number, string], { credits: number }>('UPDATE users SET credits = ? WHERE id = ? RETURNING credits');
  const selectBalance = sqlite.prepare<[string], { credits: number }>('SELECT credits FROM users WHERE id = ?');

  // Another connection's commit (SQLite's data_version, looked for at most once per
  // KEYS_RECHECK_MS) or this store's own key changes (create, addKey, revokeKey) move the version.
  const commits = watchCommits(sqlite, KEYS_RECHECK_MS);
  const changed = commits.changed;

  const addKeyRow = (userId: string, k: NewApiKey) => insertKey.run(k.id, k.hash, k.prefix, k.createdAt, userId).changes > 0;
  const create = sqlite.transaction((u: NewUser, k: NewApiKey) => {
    insertUser.run(u.id, u.name, u.credits, JSON.stringify(u.permissions), u.createdAt);
    addKeyRow(u.id, k);
  });
  /** Only after a conditional update matched nothing: tells "no such user" from "too few credits". */
  const refusal = (userId: string): CreditChange => {
    const row = selectBalance.get(userId);
    return row ? { status: 'insufficient', credits: row.credits } : { status: 'not-found' };
  };

  return {
    async create(user, firstKey) {
      nonNegative(user.credits);
      create(user, firstKey);
      changed();
    },
    async get(id) {
      const row = selectUser.get(id);
      return row && record(row);
    },
    async list() {
      return selectUsers.all().map(record);
    },
    async addKey(userId, key) {
      const added = addKeyRow(userId, key);
      changed();
      return added;
    },
    async addKeyWithin(userId, key, maxActive) {
      const added = insertKeyWithin.run(key.id, key.hash, key.prefix, key.createdAt, userId, maxActive).changes > 0;
      changed();
      if (added) return 'added';
      return selectUserId.get(userId) ? 'at-limit' : 'not-found';
    },
    async listKeys(userId) {
      return selectKeys.all(userId).map(keyRecord);
    },
    async pageKeys(userId, limit, cursor) {
      const c = cursor ?? { createdAt: Number.MAX_SAFE_INTEGER, id: '' };
      return selectKeyPage.all(userId, c.createdAt, c.createdAt, c.id, limit).map(keyRecord);
    },
    async getKey(userId, id) {
      const row = selectKey.get(id, userId);
      return row && keyRecord(row);
    },
    async revokeKey(by, now) {
      const res = 'hash' in by ? revokeByHash.run(now, by.hash) : by.userId !== undefined ? revokeOwnById.run(now, by.id, by.userId) : revokeById.run(now, by.id);
      changed();
      return res.changes > 0;
    },
    async ownerOfKey(hash) {
      const row = selectOwner.get(hash);
      return row && { keyId: row.key_id, userId: row.user_id, name: row.name, permissions: JSON.parse(row.permissions) as string[] };
    },
    async keysVersion() {
      return commits.version();
    },
    async addCredits(userId, amount) {
      const row = addToBalance.get(amount, userId, amount);
      return row ? { status: 'ok', credits: row.credits } : refusal(userId);
    },
    async setCredits(userId, credits) {
      nonNegative(credits);
      const row = setBalance.get(credits, userId);
      return row ? { status: 'ok', credits: row.credits } : { status: 'not-found' };
    },
  };
}
