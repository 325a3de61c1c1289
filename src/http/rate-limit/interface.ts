/**
 * How many requests one API key may send. The in-memory limiter (memory.ts) counts on one
 * process (SQLite: one API process); on PostgreSQL every API process counts in one table
 * (store-pg.ts, with an in-memory insurance limiter for when the database does not answer).
 */
export interface RateLimiter {
  /** Takes one request from the allowance of `key` (an API key's id, never the key itself). */
  take(key: string): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests the allowance holds when full (`RateLimit-Limit`). */
  limit: number;
  /** Requests left in it after this one (`RateLimit-Remaining`). */
  remaining: number;
  /** Milliseconds until the allowance is full again (`RateLimit-Reset`, and `Retry-After` when refused). */
  resetMs: number;
}
