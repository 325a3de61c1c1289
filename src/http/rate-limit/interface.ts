/**
 * How many requests one API key may send. The in-memory limiter (memory.ts) counts on one
 * process; several API processes need a shared counter (rate-limiter-flexible ships the same
 * limiter on Redis, PostgreSQL and SQLite), which is another implementation of this interface.
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
