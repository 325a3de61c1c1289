/** Worker tokens: 32 random bytes, shown once, stored only as a hash (./token-store.ts). */
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

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}
