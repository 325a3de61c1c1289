import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock, IdFactory } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import { hashApiKey } from '../../users/api-keys.ts';

/**
 * Worker tokens: 32 random bytes, shown once, stored only as HMAC-SHA256 under
 * deriveKey(master, 'worker-token-hash') — the API keys' scheme (users/api-keys.ts) under a
 * key of its own, so a token can never verify as an API key or the other way round.
 * Verification is one HMAC and one indexed lookup, with no cache: a revoked token stops
 * working on its next call, in every process.
 */
export const WORKER_TOKEN_PATTERN = /^mwk_[A-Za-z0-9_-]{43}$/;

export interface WorkerIdentity {
  id: string;
  name: string;
}

export interface WorkerView {
  id: string;
  name: string;
  created_at: string;
  last_seen_at: string | null;
  revoked_at: string | null;
}

export interface WorkerTokens {
  add(name: string): { id: string; name: string; token: string };
  list(): WorkerView[];
  /** False when no active worker has that id. */
  revoke(id: string): boolean;
  /** The worker a `Bearer` token belongs to, or null; notes the call as its last one. */
  verify(token: string): WorkerIdentity | null;
}

export interface WorkerTokenDeps {
  sqlite: Database.Database;
  clock: Clock;
  newId: IdFactory;
  /** deriveKey(master, 'worker-token-hash') */
  hashKey: Buffer;
}

/** last_seen_at is written at most this often per worker: a heartbeat is not worth a write each. */
const SEEN_RESOLUTION_MS = 5000;

export function createWorkerTokens(deps: WorkerTokenDeps): WorkerTokens {
  const { sqlite, clock } = deps;
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
    add(name) {
      const id = deps.newId('wkr');
      const token = `mwk_${randomBytes(32).toString('base64url')}`;
      insert.run(id, name, hashApiKey(deps.hashKey, token), clock.now());
      return { id, name, token };
    },
    list: () =>
      all.all().map((w) => ({ id: w.id, name: w.name, created_at: isoTime(w.created_at), last_seen_at: time(w.last_seen_at), revoked_at: time(w.revoked_at) })),
    revoke: (id) => revoke.run(clock.now(), id).changes > 0,
    verify(token) {
      if (!WORKER_TOKEN_PATTERN.test(token)) return null;
      const row = byHash.get(hashApiKey(deps.hashKey, token));
      if (!row) return null;
      const now = clock.now();
      if (row.last_seen_at === null || now - row.last_seen_at >= SEEN_RESOLUTION_MS) seen.run(now, row.id);
      return { id: row.id, name: row.name };
    },
  };
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}
