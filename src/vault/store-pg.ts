import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { onDialect, type Database } from '../db/database.ts';
import { createSqliteVaultStore, type KekRow, type VaultStore, type WrappedFieldRow } from './store.ts';

/**
 * Taken for its transaction by whatever changes which KEK is primary (the first one, a
 * promotion): the "no primary yet" check and the demotion then see what another process
 * committed, so there is exactly one primary however many start or rotate at once.
 */
export const PRIMARY_KEK_LOCK = 0x6d696d696302;

const KEK_COLS = 'id, provider, wrapped, status, created_at, demoted_at';
const primary = statement('vault_primary', `SELECT id FROM vault_keys WHERE status = 'primary' ORDER BY created_at DESC, id DESC LIMIT 1`);
const keyById = statement('vault_key', `SELECT ${KEK_COLS} FROM vault_keys WHERE id = $1`);
const allKeys = statement('vault_keys', `SELECT ${KEK_COLS} FROM vault_keys ORDER BY created_at, id`);
const nonPrimary = statement('vault_non_primary', `SELECT id FROM vault_keys WHERE status <> 'primary' ORDER BY created_at, id`);
const lockPrimary = statement('vault_lock_primary', 'SELECT pg_advisory_xact_lock($1)');
const insertFirst = statement(
  'vault_insert_first',
  `INSERT INTO vault_keys (id, provider, wrapped, status, created_at) SELECT $1::text, $2::text, $3::text, 'primary', $4::bigint
   WHERE NOT EXISTS (SELECT 1 FROM vault_keys WHERE status = 'primary')`,
);
const demotePrimary = statement('vault_demote', `UPDATE vault_keys SET status = 'active', demoted_at = $1 WHERE status = 'primary'`);
const insertPrimary = statement('vault_insert_primary', `INSERT INTO vault_keys (id, provider, wrapped, status, created_at) VALUES ($1, $2, $3, 'primary', $4)`);

const ROWS_OF = 'SELECT f.secret_id, f.field, f.kek_id, f.wrapped_key, s.user_id FROM secret_fields f JOIN secrets s ON s.id = f.secret_id';
// The cursor compares in the C collation (byte order, as SQLite does), whatever the database's is.
const firstBatch = statement('vault_batch_first', `${ROWS_OF} WHERE f.kek_id = $1 ORDER BY f.secret_id COLLATE "C", f.field COLLATE "C" LIMIT $2`);
const nextBatch = statement(
  'vault_batch_next',
  `${ROWS_OF} WHERE f.kek_id = $1 AND (f.secret_id COLLATE "C" > $2 OR (f.secret_id = $2 AND f.field COLLATE "C" > $3))
   ORDER BY f.secret_id COLLATE "C", f.field COLLATE "C" LIMIT $4`,
);
// Compare-and-set, the whole batch in one statement: a row replaced meanwhile (a PUT, a token
// refresh) is waited for, its new version fails the condition, and it keeps its new value.
const casRewraps = statement(
  'vault_rewrap',
  `UPDATE secret_fields f SET kek_id = r.new_kek, wrapped_key = r.new_wrapped
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS r(secret_id, field, old_kek, old_wrapped, new_kek, new_wrapped)
   WHERE f.secret_id = r.secret_id AND f.field = r.field AND f.kek_id = r.old_kek AND f.wrapped_key = r.old_wrapped`,
);
const retireUnused = statement(
  'vault_retire_unused',
  `WITH retired AS (
     UPDATE vault_keys SET status = 'retired'
     WHERE status = 'active' AND NOT EXISTS (SELECT 1 FROM secret_fields f WHERE f.kek_id = vault_keys.id)
     RETURNING id, created_at)
   SELECT id FROM retired ORDER BY created_at, id`,
);
const counts = statement('vault_counts', 'SELECT kek_id, count(*) AS n FROM secret_fields GROUP BY kek_id');
const insertMeta = statement('vault_meta_insert', 'INSERT INTO vault_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING');
const meta = statement('vault_meta', 'SELECT value FROM vault_meta WHERE name = $1');

/** The VaultStore on PostgreSQL (src/vault/README.md states what each step guarantees). */
export function createPgVaultStore(h: PgDatabase): VaultStore {
  const { pool } = h;
  return {
    primaryId: async () => (await primary<{ id: string }>(pool)).rows[0]?.id,
    key: async (id) => (await keyById<KekRow>(pool, [id])).rows[0],
    keys: async () => (await allKeys<KekRow>(pool)).rows,
    nonPrimaryIds: async () => (await nonPrimary<{ id: string }>(pool)).rows.map((r) => r.id),
    insertFirstPrimary: (id, provider, wrapped, now) =>
      withTx(pool, async (c) => {
        await lockPrimary(c, [PRIMARY_KEK_LOCK]);
        return ((await insertFirst(c, [id, provider, wrapped, now])).rowCount ?? 0) > 0;
      }),
    promote: (id, provider, wrapped, now) =>
      withTx(pool, async (c) => {
        await lockPrimary(c, [PRIMARY_KEK_LOCK]);
        await demotePrimary(c, [now]);
        await insertPrimary(c, [id, provider, wrapped, now]);
      }),
    batch: async (kekId, after, limit) =>
      (after ? await nextBatch<WrappedFieldRow>(pool, [kekId, after.secretId, after.field, limit]) : await firstBatch<WrappedFieldRow>(pool, [kekId, limit])).rows,
    async applyRewraps(rewraps) {
      if (rewraps.length === 0) return 0;
      const column = <K extends keyof (typeof rewraps)[number]>(k: K) => rewraps.map((r) => r[k]);
      const res = await casRewraps(pool, [
        column('secretId'), column('field'), column('oldKekId'), column('oldWrappedKey'), column('newKekId'), column('newWrappedKey'),
      ]);
      return res.rowCount ?? 0;
    },
    retireUnused: async () => (await retireUnused<{ id: string }>(pool)).rows.map((r) => r.id),
    dataKeyCounts: async () => new Map((await counts<{ kek_id: string; n: number }>(pool)).rows.map((r) => [r.kek_id, r.n])),
    async recordMeta(name, value) {
      await insertMeta(pool, [name, value]);
      // A statement of its own: it sees the value another process committed first.
      return (await meta<{ value: string }>(pool, [name])).rows[0]?.value;
    },
  };
}

/** The VaultStore on the database's dialect. */
export const vaultStoreOn = (database: Database): VaultStore => onDialect(database, { sqlite: createSqliteVaultStore, postgres: createPgVaultStore });
