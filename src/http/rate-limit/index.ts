export type { RateLimiter, RateLimitDecision } from './interface.ts';
export { createMemoryRateLimiter } from './memory.ts';
export { rateLimitPerKey } from './middleware.ts';
