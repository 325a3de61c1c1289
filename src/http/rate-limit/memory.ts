import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitSettings } from '../../config.ts';
import type { RateLimitDecision, RateLimiter } from './interface.ts';

/** Which allowance a limiter counts: an API key's (or one end user's of a client key), or a client key's as a whole. */
export type RateLimitName = 'api-key' | 'client-key';

/** Makes the limiter of one allowance: what the app is given (in memory here; src/http/rate-limit/store-pg.ts: in PostgreSQL). */
export type RateLimiters = (settings: RateLimitSettings, name: RateLimitName) => RateLimiter;

/** rate-limiter-flexible's options for `settings`: `burst` requests per window of `burst / perSecond` seconds. */
export const windowOf = (settings: RateLimitSettings, name: RateLimitName) => ({ keyPrefix: name, points: settings.burst, duration: settings.burst / settings.perSecond });

/** A RateLimiter over one of rate-limiter-flexible's limiters (in memory, or on PostgreSQL with an insurance limiter). */
export function limiterOver(limiter: Pick<RateLimiterAbstract, 'consume'>, settings: RateLimitSettings): RateLimiter {
  const decision = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit: settings.burst,
    remaining: res.remainingPoints,
    resetMs: res.msBeforeNext,
  });
  return {
    async take(key) {
      try {
        return decision(await limiter.consume(key), true);
      } catch (refusal) {
        // The library rejects with the counter's state when the allowance is spent.
        if (refusal instanceof RateLimiterRes) return decision(refusal, false);
        throw refusal;
      }
    },
  };
}

/**
 * Counts requests in this process: each key may send `burst` requests per window of
 * `burst / perSecond` seconds, which is `perSecond` on average and `burst` at once. The
 * window starts at a key's first request; counters of idle keys expire with their window.
 */
export function createMemoryRateLimiter(settings: RateLimitSettings, name: RateLimitName = 'api-key'): RateLimiter {
  return limiterOver(new RateLimiterMemory(windowOf(settings, name)), settings);
}
