import { createHmac, randomBytes } from 'node:crypto';
import type { Clock, IdFactory } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import type { Store } from '../../db/client.ts';
import { WORKER_TOKEN_PATTERN, type WorkerIdentity, type WorkerTokens, type WorkerView } from './tokens.ts';

/**
 * Worker tokens in the database: stored only as HMAC-SHA256 under
 * deriveKey(master, 'worker-token-hash'), the API keys' scheme (users/api-keys.ts) under a
 * key of its own, so a token can never verify as an API key or the other way round.
 * Verification is one HMAC and one indexed lookup, with no cache: a revoked token stops
 * working on its next call, in every process.
 */

export interface WorkerTokenDeps {
  store: Store;
  clock: Clock;
  newId: IdFactory;
  /** deriveKey(master, 'worker-token-hash') */
  hashKey: Buffer;
}

/** last_seen_at is written at most this often per worker: a heartbeat is not worth a write each. */
const SEEN_RESOLUTION_MS = 5000;

const hashOf = (key: Buffer, token: string): string => createHmac('sha256', key).update(token).digest('base64url');

export function createWorkerTokens(deps: WorkerTokenDeps): WorkerTokens {
  const { clock } = deps;
  const { sqlite } = deps.store;
  const insert = sqlite.prepare(`INSERT INTO compute_workers (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)`);
  const all = sqlite.prepare<[], { id: string; name: string; created_at: number; last_seen_at: number | null; revoked_at: number | null }>(
    `SELECT id, name, created_at, last_seen_at, revoked_at FROM compute_workers ORDER BY created_at DESC, id DESC`,
  );
  const revoke = sqlite.prepare(`UPDATE compute_workers SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`);
  const byHash = sqlite.prepare<[string], { id: string; name: string; last_seen_at: number | null }>(
    `SELECT id, name, last_seen_at FROM compute_workers WHERE token_hash = ? AND revoked_at IS NULL`,
  );
  const seen = sqlite.prepare(`UPDATE compute_workers SET last_seen_at = ? WHERE id = ?`);
  const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

  return {
    async add(name) {
      const id = deps.newId('wkr');
      const token = `mwk_${randomBytes(32).toString('base64url')}`;
      insert.run(id, name, hashOf(deps.hashKey, token), clock.now());
      return { id, name, token };
    },
    list: async (): Promise<WorkerView[]> =>
      all.all().map((w) => ({ id: w.id, name: w.name, created_at: isoTime(w.created_at), last_seen_at: time(w.last_seen_at), revoked_at: time(w.revoked_at) })),
    revoke: async (id) => revoke.run(clock.now(), id).changes > 0,
    async verify(token): Promise<WorkerIdentity | null> {
      if (!WORKER_TOKEN_PATTERN.test(token)) return null;
      const row = byHash.get(hashOf(deps.hashKey, token));
      if (!row) return null;
      const now = clock.now();
      if (row.last_seen_at === null || now - row.last_seen_at >= SEEN_RESOLUTION_MS) seen.run(now, row.id);
      return { id: row.id, name: row.name };
    },
  };
}
