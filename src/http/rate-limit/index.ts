export type { RateLimiter, RateLimitDecision } from './interface.ts';
export { createMemoryRateLimiter, type RateLimiters, type RateLimitName } from './memory.ts';
export { rateLimitPerKey } from './middleware.ts';
