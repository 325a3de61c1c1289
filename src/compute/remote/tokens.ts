import { createHmac, randomBytes } from 'node:crypto';
import type { Clock, IdFactory } from '../../clock.ts';
import { isoTime } from '../../clock.ts';
import type { WorkerTokenStore } from './token-store.ts';

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
  add(name: string): Promise<{ id: string; name: string; token: string }>;
  list(): Promise<WorkerView[]>;
  /** False when no active worker has that id. */
  revoke(id: string): Promise<boolean>;
  /** The worker a `Bearer` token belongs to, or null; notes the call as its last one. */
  verify(token: string): Promise<WorkerIdentity | null>;
}

export interface WorkerTokenDeps {
  store: WorkerTokenStore;
  clock: Clock;
  newId: IdFactory;
  /** deriveKey(master, 'worker-token-hash') */
  hashKey: Buffer;
}

/** last_seen_at is written at most this often per worker: a heartbeat is not worth a write each. */
const SEEN_RESOLUTION_MS = 5000;

const hashOf = (key: Buffer, token: string): string => createHmac('sha256', key).update(token).digest('base64url');
const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function createWorkerTokens(deps: WorkerTokenDeps): WorkerTokens {
  const { store, clock } = deps;
  return {
    async add(name) {
      const id = deps.newId('wkr');
      const token = `mwk_${randomBytes(32).toString('base64url')}`;
      await store.insert(id, name, hashOf(deps.hashKey, token), clock.now());
      return { id, name, token };
    },
    list: async () =>
      (await store.list()).map((w) => ({ id: w.id, name: w.name, created_at: isoTime(w.created_at), last_seen_at: time(w.last_seen_at), revoked_at: time(w.revoked_at) })),
    revoke: (id) => store.revoke(id, clock.now()),
    async verify(token) {
      if (!WORKER_TOKEN_PATTERN.test(token)) return null;
      const row = await store.activeByHash(hashOf(deps.hashKey, token));
      if (!row) return null;
      const now = clock.now();
      if (row.last_seen_at === null || now - row.last_seen_at >= SEEN_RESOLUTION_MS) await store.noteSeen(row.id, now);
      return { id: row.id, name: row.name };
    },
  };
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}
