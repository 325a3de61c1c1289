import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';
import type { RateLimiter } from './interface.ts';
import { responseHeader } from '../middleware.ts';

/**
 * Limits each API key after authentication; requests without a key (public paths, and the
 * 401s of bad keys) pass untouched. Every limited response carries the IETF draft's
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds); a refusal is a
 * 429 TooManyRequestsError with `Retry-After` (seconds). `null`: limiting is off.
 */
export function rateLimitPerKey(limiter: RateLimiter | null): MiddlewareHandler<AppEnv> {
  if (!limiter) return (_c, next) => next();
  return async (c, next) => {
    const keyId = c.get('user')?.keyId;
    if (keyId === undefined) return next();
    const d = await limiter.take(keyId);
    const resetSeconds = Math.max(1, Math.ceil(d.resetMs / 1000));
    responseHeader(c, 'RateLimit-Limit', String(d.limit));
    responseHeader(c, 'RateLimit-Remaining', String(d.remaining));
    responseHeader(c, 'RateLimit-Reset', String(resetSeconds));
    if (!d.allowed) {
      responseHeader(c, 'Retry-After', String(resetSeconds));
      throw new ApiError('TooManyRequestsError', `Too many requests with this API key (${d.limit} per window); retry in ${resetSeconds} s`, {
        retry_after_seconds: resetSeconds,
      });
    }
    return next();
  };
}
