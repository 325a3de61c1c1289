import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { onDialect, type Database } from '../db/database.ts';
import { KEYS_TOPIC } from './contract.ts';
import { createSqliteUserStore, keyRecord, nonNegative, record, type CreditChange, type KeyRow, type UserRow, type UserStore } from './store.ts';


const USER_COLS = 'id, name, credits, permissions, created_at';
const KEY_COLS = 'id, user_id, prefix, created_at, revoked_at';

// The user and its first key in one statement: a key that cannot be stored (its hash taken) leaves no user.
const insertUserAndKey = statement(
  'users_create',
  `WITH u AS (INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id)
   INSERT INTO api_keys (id, user_id, hash, prefix, created_at) SELECT $6::text, u.id, $7::text, $8::text, $9::bigint FROM u`,
);
const selectUser = statement('users_get', `SELECT ${USER_COLS} FROM users WHERE id = $1`);
const selectUsers = statement('users_list', `SELECT ${USER_COLS} FROM users ORDER BY created_at DESC, id DESC`);
const insertKey = statement(
  'users_add_key',
  'INSERT INTO api_keys (id, user_id, hash, prefix, created_at) SELECT $1::text, id, $2::text, $3::text, $4::bigint FROM users WHERE id = $5',
);
// Under READ COMMITTED a count in the insert's own snapshot would let two requests pass the cap
// together: the user's row is locked first (lockUser), and the insert, a later statement, counts
// what the other committed.
const lockUser = statement('users_lock', 'SELECT id FROM users WHERE id = $1 FOR UPDATE');
const insertKeyWithin = statement(
  'users_add_key_within',
  `INSERT INTO api_keys (id, user_id, hash, prefix, created_at) SELECT $1::text, $5::text, $2::text, $3::text, $4::bigint
   WHERE (SELECT count(*) FROM api_keys WHERE user_id = $5 AND revoked_at IS NULL) < $6`,
);
const selectKeys = statement('users_list_keys', `SELECT ${KEY_COLS} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id DESC`);
const selectKeyPage = statement(
  'users_page_keys',
  `SELECT ${KEY_COLS} FROM api_keys WHERE user_id = $1 AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4`,
);
const selectKey = statement('users_get_key', `SELECT ${KEY_COLS} FROM api_keys WHERE id = $1 AND user_id = $2`);
const revokeById = statement('users_revoke_id', 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL');
const revokeOwnById = statement('users_revoke_own', 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL');
const revokeByHash = statement('users_revoke_hash', 'UPDATE api_keys SET revoked_at = $1 WHERE hash = $2 AND revoked_at IS NULL');
// The authentication hot path: prepared once per connection, one index lookup and a key join.
const selectOwner = statement(
  'users_owner_of_key',
  `SELECT k.id AS key_id, u.id AS user_id, u.name, u.permissions FROM api_keys k JOIN users u ON u.id = k.user_id
   WHERE k.hash = $1 AND k.revoked_at IS NULL`,
);
// Conditional updates: a concurrent change to the row is waited for and the condition checked
// again on the row it committed, so charges from any number of processes never overdraw.
const addToBalance = statement('users_add_credits', 'UPDATE users SET credits = credits + $1 WHERE id = $2 AND credits + $1 >= 0 RETURNING credits');
const setBalance = statement('users_set_credits', 'UPDATE users SET credits = $1 WHERE id = $2 RETURNING credits');
const selectBalance = statement('users_balance', 'SELECT credits FROM users WHERE id = $1');

/**
 * The UserStore on PostgreSQL. Key changes are announced on the `keys` topic (LISTEN/NOTIFY,
 * src/db/pg/changes.ts): every process's `keysVersion` moves when one is heard, and at every
 * call while its listening connection is down (nothing remembered is trusted then).
 */
export function createPgUserStore(h: PgDatabase): UserStore {
  const { pool } = h;
  // Awaited (not CommitWatch.changed's fire-and-forget): an operator command that revokes a key
  // and exits at once must have told the other processes before its pool closes.
  const changed = () => h.changes.announce(KEYS_TOPIC);

  /** Only after a conditional update matched nothing: tells "no such user" from "too few credits". */
  const refusal = async (userId: string): Promise<CreditChange> => {
    const row = (await selectBalance<{ credits: number }>(pool, [userId])).rows[0];
    return row ? { status: 'insufficient', credits: row.credits } : { status: 'not-found' };
  };

  return {
    async create(u, k) {
      nonNegative(u.credits);
      await insertUserAndKey(pool, [u.id, u.name, u.credits, JSON.stringify(u.permissions), u.createdAt, k.id, k.hash, k.prefix, k.createdAt]);
      await changed();
    },
    async get(id) {
      const row = (await selectUser<UserRow>(pool, [id])).rows[0];
      return row && record(row);
    },
    async list() {
      return (await selectUsers<UserRow>(pool)).rows.map(record);
    },
    async addKey(userId, k) {
      const added = ((await insertKey(pool, [k.id, k.hash, k.prefix, k.createdAt, userId])).rowCount ?? 0) > 0;
      await changed();
      return added;
    },
    async addKeyWithin(userId, k, maxActive) {
      const outcome = await withTx(pool, async (c) => {
        if ((await lockUser(c, [userId])).rowCount === 0) return 'not-found' as const;
        const res = await insertKeyWithin(c, [k.id, k.hash, k.prefix, k.createdAt, userId, maxActive]);
        return (res.rowCount ?? 0) > 0 ? ('added' as const) : ('at-limit' as const);
      });
      await changed();
      return outcome;
    },
    async listKeys(userId) {
      return (await selectKeys<KeyRow>(pool, [userId])).rows.map(keyRecord);
    },
    async pageKeys(userId, limit, cursor) {
      const c = cursor ?? { createdAt: Number.MAX_SAFE_INTEGER, id: '' };
      return (await selectKeyPage<KeyRow>(pool, [userId, c.createdAt, c.id, limit])).rows.map(keyRecord);
    },
    async getKey(userId, id) {
      const row = (await selectKey<KeyRow>(pool, [id, userId])).rows[0];
      return row && keyRecord(row);
    },
    async revokeKey(by, now) {
      const res =
        'hash' in by ? await revokeByHash(pool, [now, by.hash]) : by.userId !== undefined ? await revokeOwnById(pool, [now, by.id, by.userId]) : await revokeById(pool, [now, by.id]);
      await changed();
      return (res.rowCount ?? 0) > 0;
    },
    async ownerOfKey(hash) {
      const row = (await selectOwner<{ key_id: string; user_id: string; name: string | null; permissions: string }>(pool, [hash])).rows[0];
      return row && { keyId: row.key_id, userId: row.user_id, name: row.name, permissions: JSON.parse(row.permissions) as string[] };
    },
    async keysVersion() {
      return h.changes.version(KEYS_TOPIC);
    },
    async addCredits(userId, amount) {
      if (!Number.isSafeInteger(amount)) throw new RangeError(`a credit change must be a whole number, got ${amount}`);
      const row = (await addToBalance<{ credits: number }>(pool, [amount, userId])).rows[0];
      return row ? { status: 'ok', credits: row.credits } : refusal(userId);
    },
    async setCredits(userId, credits) {
      nonNegative(credits);
      const row = (await setBalance<{ credits: number }>(pool, [credits, userId])).rows[0];
      return row ? { status: 'ok', credits: row.credits } : { status: 'not-found' };
    },
  };
}

/** The UserStore on the database's dialect. */
export const userStoreOn = (database: Database): UserStore => onDialect(database, { sqlite: createSqliteUserStore, postgres: createPgUserStore });
