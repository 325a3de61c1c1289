import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitSettings } from '../../config.ts';
import type { RateLimitDecision, RateLimiter } from './interface.ts';

/**
 * Counts requests in this process: each key may send `burst` requests per window of
 * `burst / perSecond` seconds, which is `perSecond` on average and `burst` at once. The
 * window starts at a key's first request; counters of idle keys expire with their window.
 */
export function createMemoryRateLimiter(settings: RateLimitSettings): RateLimiter {
  const limiter = new RateLimiterMemory({ keyPrefix: 'api-key', points: settings.burst, duration: settings.burst / settings.perSecond });
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
