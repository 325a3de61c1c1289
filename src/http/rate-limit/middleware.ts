import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';
import type { RateLimiter } from './interface.ts';
import { responseHeader } from '../middleware.ts';

/**
 * Limits each API key after authentication; requests without a key (public paths, and the
 * 401s of bad keys) pass untouched. A client key's caller takes from two allowances: its end
 * user's (the key and the external id, as an API key's) and, when `wholeClientKey` is given,
 * the key's as a whole, all its end users together (an end user's id is the page's to choose,
 * so new ids alone must not lift the key's total). Every limited response carries the IETF
 * draft's `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) of the
 * allowance that is closer to running out; a refusal is a 429 TooManyRequestsError with
 * `Retry-After` (seconds). `null`: limiting is off.
 */
export function rateLimitPerKey(limiter: RateLimiter | null, wholeClientKey: RateLimiter | null = null): MiddlewareHandler<AppEnv> {
  if (!limiter) return (_c, next) => next();
  return async (c, next) => {
    const user = c.get('user');
    const keyId = user?.keyId;
    if (keyId === undefined) return next();
    const client = user.client;
    let d = await limiter.take(keyId);
    let whose = client ? 'this end user of the client key' : 'this API key';
    if (client && wholeClientKey && d.allowed) {
      const whole = await wholeClientKey.take(`ck:${client.clientKeyId}`);
      if (!whole.allowed || whole.remaining < d.remaining) {
        d = whole;
        whose = 'this client key (all its end users together)';
      }
    }
    const resetSeconds = Math.max(1, Math.ceil(d.resetMs / 1000));
    responseHeader(c, 'RateLimit-Limit', String(d.limit));
    responseHeader(c, 'RateLimit-Remaining', String(d.remaining));
    responseHeader(c, 'RateLimit-Reset', String(resetSeconds));
    if (!d.allowed) {
      responseHeader(c, 'Retry-After', String(resetSeconds));
      throw new ApiError('TooManyRequestsError', `Too many requests with ${whose} (${d.limit} per window); retry in ${resetSeconds} s`, {
        retry_after_seconds: resetSeconds,
      });
    }
    return next();
  };
}
