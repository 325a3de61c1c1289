import { pgTable, text, integer, bigint } from 'drizzle-orm/pg-core';

/**
 * PostgreSQL only: the request counters every API process shares (rate-limiter-flexible's
 * RateLimiterPostgres, src/http/rate-limit/store-pg.ts). On SQLite the limiter counts in memory.
 * The key is text, not the library's varchar(255): a client key and its end user's id run longer.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  /** Milliseconds since the epoch; null: never expires. */
  expire: bigint('expire', { mode: 'number' }),
});
