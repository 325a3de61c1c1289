import type { Store } from '../db/client.ts';

/**
 * The vault's SQL behind an async interface. Inside, SQLite stays synchronous: each
 * transaction is one method here, and callers do their crypto (and provider calls) before
 * and after, never inside.
 */

export interface KekRow {
  id: string;
  provider: string;
  wrapped: string;
  status: 'primary' | 'active' | 'retired';
  created_at: number;
  demoted_at: number | null;
}

/** Where a rotation pass stands in one KEK's rows: (secret_id, field), the key of secret_fields. */
export interface FieldCursor {
  secretId: string;
  field: string;
}

/** A secret_fields row as rotation sees it. */
export interface WrappedFieldRow {
  secret_id: string;
  field: string;
  kek_id: string;
  wrapped_key: string;
  user_id: string;
}

export interface Rewrap {
  secretId: string;
  field: string;
  oldKekId: string;
  oldWrappedKey: string;
  newKekId: string;
  newWrappedKey: string;
}

export interface VaultStore {
  primaryId(): Promise<string | undefined>;
  key(id: string): Promise<KekRow | undefined>;
  keys(): Promise<KekRow[]>;
  nonPrimaryIds(): Promise<string[]>;
  /** Inserts the first primary unless one exists (another process may have won the race); false when it lost. */
  insertFirstPrimary(id: string, provider: string, wrapped: string, now: number): Promise<boolean>;
  /** The new KEK becomes the one primary; the previous primary becomes active (still decrypts). */
  promote(id: string, provider: string, wrapped: string, now: number): Promise<void>;
  /** Up to `limit` rows under `kekId` after `after`, in (secret_id, field) order. */
  batch(kekId: string, after: FieldCursor | null, limit: number): Promise<WrappedFieldRow[]>;
  /** Applies re-wraps in one transaction, each only if the row is still as read; returns how many were. */
  applyRewraps(rewraps: Rewrap[]): Promise<number>;
  /** Retires demoted KEKs no data key refers to any more; returns their ids. */
  retireUnused(): Promise<string[]>;
  dataKeyCounts(): Promise<Map<string, number>>;
  /** Records `value` under `name` unless a value is there; answers the stored value. */
  recordMeta(name: string, value: string): Promise<string | undefined>;
}

export function createSqliteVaultStore(handle: Store): VaultStore {
  const { sqlite } = handle;
  const primary = sqlite.prepare<[], { id: string }>(
    `SELECT id FROM vault_keys WHERE status = 'primary' ORDER BY created_at DESC, id DESC LIMIT 1`,
  );
  const keyById = sqlite.prepare<[string], KekRow>('SELECT * FROM vault_keys WHERE id = ?');
  const allKeys = sqlite.prepare<[], KekRow>('SELECT * FROM vault_keys ORDER BY created_at, id');
  const insertKey = sqlite.prepare<[string, string, string, number]>(
    `INSERT INTO vault_keys (id, provider, wrapped, status, created_at) VALUES (?, ?, ?, 'primary', ?)`,
  );
  const demotePrimary = sqlite.prepare<[number]>(`UPDATE vault_keys SET status = 'active', demoted_at = ? WHERE status = 'primary'`);
  const nonPrimary = sqlite.prepare<[], { id: string }>(`SELECT id FROM vault_keys WHERE status <> 'primary' ORDER BY created_at, id`);
  const rowsOf = `SELECT f.secret_id, f.field, f.kek_id, f.wrapped_key, s.user_id FROM secret_fields f JOIN secrets s ON s.id = f.secret_id`;
  const firstBatch = sqlite.prepare<[string, number], WrappedFieldRow>(`${rowsOf} WHERE f.kek_id = ? ORDER BY f.secret_id, f.field LIMIT ?`);
  const nextBatch = sqlite.prepare<[string, string, string, string, number], WrappedFieldRow>(
    `${rowsOf} WHERE f.kek_id = ? AND (f.secret_id > ? OR (f.secret_id = ? AND f.field > ?)) ORDER BY f.secret_id, f.field LIMIT ?`,
  );
  // Compare-and-set: a row replaced meanwhile (a PUT, a token refresh) keeps its new value.
  const casRewrap = sqlite.prepare<[string, string, string, string, string, string]>(
    `UPDATE secret_fields SET kek_id = ?, wrapped_key = ?
     WHERE secret_id = ? AND field = ? AND kek_id = ? AND wrapped_key = ?`,
  );
  const retireUnused = sqlite.prepare<[], { id: string }>(
    `UPDATE vault_keys SET status = 'retired'
     WHERE status = 'active' AND NOT EXISTS (SELECT 1 FROM secret_fields f WHERE f.kek_id = vault_keys.id)
     RETURNING id`,
  );
  const counts = sqlite.prepare<[], { kek_id: string; n: number }>('SELECT kek_id, COUNT(*) AS n FROM secret_fields GROUP BY kek_id');
  const insertMeta = sqlite.prepare<[string, string]>('INSERT INTO vault_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
  const meta = sqlite.prepare<[string], { value: string }>('SELECT value FROM vault_meta WHERE name = ?');

  // Immediate: two processes cannot both see "no primary" and both insert.
  const insertFirst = sqlite.transaction((id: string, provider: string, wrapped: string, now: number) => {
    if (primary.get()) return false;
    insertKey.run(id, provider, wrapped, now);
    return true;
  });
  const promote = sqlite.transaction((id: string, provider: string, wrapped: string, now: number) => {
    demotePrimary.run(now);
    insertKey.run(id, provider, wrapped, now);
  });
  const apply = sqlite.transaction((rewraps: Rewrap[]) => {
    let changed = 0;
    for (const r of rewraps) changed += casRewrap.run(r.newKekId, r.newWrappedKey, r.secretId, r.field, r.oldKekId, r.oldWrappedKey).changes;
    return changed;
  });

  return {
    primaryId: async () => primary.get()?.id,
    key: async (id) => keyById.get(id),
    keys: async () => allKeys.all(),
    nonPrimaryIds: async () => nonPrimary.all().map((r) => r.id),
    insertFirstPrimary: async (id, provider, wrapped, now) => insertFirst.immediate(id, provider, wrapped, now),
    promote: async (id, provider, wrapped, now) => promote.immediate(id, provider, wrapped, now),
    batch: async (kekId, after, limit) => (after ? nextBatch.all(kekId, after.secretId, after.secretId, after.field, limit) : firstBatch.all(kekId, limit)),
    applyRewraps: async (rewraps) => apply(rewraps),
    retireUnused: async () => retireUnused.all().map((r) => r.id),
    dataKeyCounts: async () => new Map(counts.all().map((r) => [r.kek_id, r.n])),
    recordMeta: async (name, value) => {
      insertMeta.run(name, value);
      return meta.get(name)?.value;
    },
  };
}
