import type { Store } from '../db/client.ts';

/**
 * The vault's SQL, all synchronous: better-sqlite3 transactions must not await, so callers
 * do their crypto (and provider calls) before and after, never inside.
 */

export interface KekRow {
  id: string;
  provider: string;
  wrapped: string;
  status: 'primary' | 'active' | 'retired';
  created_at: number;
  demoted_at: number | null;
}

/** A secret_fields row as rotation sees it; `rid` is its rowid, the cursor of a pass. */
export interface WrappedFieldRow {
  rid: number;
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

export type VaultStore = ReturnType<typeof createVaultStore>;

export function createVaultStore(sqlite: Store['sqlite']) {
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
  // (kek_id, rowid) is exactly what secret_fields_kek_idx holds: each batch is an index range.
  const batch = sqlite.prepare<[string, number, number], WrappedFieldRow>(
    `SELECT f.rowid AS rid, f.secret_id, f.field, f.kek_id, f.wrapped_key, s.user_id
     FROM secret_fields f JOIN secrets s ON s.id = f.secret_id
     WHERE f.kek_id = ? AND f.rowid > ? ORDER BY f.rowid LIMIT ?`,
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

  return {
    primaryId: (): string | undefined => primary.get()?.id,
    key: (id: string): KekRow | undefined => keyById.get(id),
    keys: (): KekRow[] => allKeys.all(),
    nonPrimaryIds: (): string[] => nonPrimary.all().map((r) => r.id),

    /** Inserts the first primary unless one exists (another process may have won the race); immediate so both cannot pass the check. */
    insertFirstPrimary: (id: string, provider: string, wrapped: string, now: number): boolean =>
      sqlite
        .transaction(() => {
          if (primary.get()) return false;
          insertKey.run(id, provider, wrapped, now);
          return true;
        })
        .immediate(),

    /** The new KEK becomes the one primary; the previous primary becomes active (still decrypts). */
    promote: (id: string, provider: string, wrapped: string, now: number): void => {
      sqlite
        .transaction(() => {
          demotePrimary.run(now);
          insertKey.run(id, provider, wrapped, now);
        })
        .immediate();
    },

    batch: (kekId: string, afterRid: number, limit: number): WrappedFieldRow[] => batch.all(kekId, afterRid, limit),

    /** Applies re-wraps in one transaction; returns how many rows were still as read. */
    applyRewraps: (rewraps: Rewrap[]): number =>
      sqlite.transaction(() => {
        let changed = 0;
        for (const r of rewraps) {
          changed += casRewrap.run(r.newKekId, r.newWrappedKey, r.secretId, r.field, r.oldKekId, r.oldWrappedKey).changes;
        }
        return changed;
      })(),

    /** Retires demoted KEKs no data key refers to any more; returns their ids. */
    retireUnused: (): string[] => retireUnused.all().map((r) => r.id),

    dataKeyCounts: (): Map<string, number> => new Map(counts.all().map((r) => [r.kek_id, r.n])),
  };
}
