import type { Store } from '../../db/client.ts';

/** The `compute_workers` table: worker names and token hashes (the token itself is never stored). */

export interface WorkerRow {
  id: string;
  name: string;
  created_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
}

export interface WorkerTokenStore {
  insert(id: string, name: string, tokenHash: string, now: number): Promise<void>;
  /** Newest first. */
  list(): Promise<WorkerRow[]>;
  /** False when no active worker has that id. */
  revoke(id: string, now: number): Promise<boolean>;
  /** The active (not revoked) worker with this token hash. */
  activeByHash(tokenHash: string): Promise<Pick<WorkerRow, 'id' | 'name' | 'last_seen_at'> | undefined>;
  noteSeen(id: string, now: number): Promise<void>;
}

export function createWorkerTokenStore(handle: Store): WorkerTokenStore {
  const { sqlite } = handle;
  const insert = sqlite.prepare(`INSERT INTO compute_workers (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)`);
  const all = sqlite.prepare<[], WorkerRow>(`SELECT id, name, created_at, last_seen_at, revoked_at FROM compute_workers ORDER BY created_at DESC, id DESC`);
  const revoke = sqlite.prepare(`UPDATE compute_workers SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`);
  const byHash = sqlite.prepare<[string], Pick<WorkerRow, 'id' | 'name' | 'last_seen_at'>>(
    `SELECT id, name, last_seen_at FROM compute_workers WHERE token_hash = ? AND revoked_at IS NULL`,
  );
  const seen = sqlite.prepare(`UPDATE compute_workers SET last_seen_at = ? WHERE id = ?`);
  return {
    insert: async (id, name, hash, now) => void insert.run(id, name, hash, now),
    list: async () => all.all(),
    revoke: async (id, now) => revoke.run(now, id).changes > 0,
    activeByHash: async (hash) => byHash.get(hash),
    noteSeen: async (id, now) => void seen.run(now, id),
  };
}
