import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RLWrapperTimeouts } from 'rate-limiter-flexible';
import type { RateLimitSettings } from '../../config.ts';
import { onDialect, type Database } from '../../db/database.ts';
import type { RateLimiter } from './interface.ts';
import { createMemoryRateLimiter, limiterOver, windowOf, type RateLimitName, type RateLimiters } from './memory.ts';

/** The counters of every process on one PostgreSQL database: one row per key (`<name>:<key>`), its points and when its window ends (ms). */
export const RATE_LIMITS_TABLE = 'rate_limits';

/**
 * rate-limiter-flexible's own table, with `text` keys: a client key's end-user ids are the
 * page's to choose (up to 200 characters), past the library's varchar(255) with the prefixes.
 */
export const RATE_LIMITS_DDL = `CREATE TABLE IF NOT EXISTS ${RATE_LIMITS_TABLE} (key text PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`;

/** A counter that does not answer within this long (a database that hangs) is answered by the insurance limiter. */
export const RATE_LIMIT_STORE_TIMEOUT_MS = 2_000;

/** After a failed attempt to make the table, the next one waits this long (requests meanwhile go to the insurance limiter). */
const TABLE_RETRY_MS = 1_000;

export interface PgRateLimiterOptions {
  name: RateLimitName;
  timeoutMs?: number;
}

/** Another process made the table at the same moment (the loser of CREATE TABLE IF NOT EXISTS may see either). */
const MADE_MEANWHILE = new Set(['23505', '42P07']);

/**
 * Makes the counters' table once per pool unless it is there (a role without CREATE then
 * works on a table a migration made).
 */
function tableMaker(pool: pg.Pool): () => Promise<boolean> {
  let made = false;
  let trying: Promise<boolean> | undefined;
  let failedAt = -Infinity;
  const make = async () => {
    const found = await pool.query<{ found: boolean }>({ name: 'rate_limits_found', text: 'SELECT to_regclass($1) IS NOT NULL AS found', values: [RATE_LIMITS_TABLE] });
    if (!found.rows[0]!.found) await pool.query(RATE_LIMITS_DDL);
  };
  return async () => {
    if (made) return true;
    if (performance.now() - failedAt < TABLE_RETRY_MS) return false;
    trying ??= make()
      .then(
        () => (made = true),
        (err: { code?: string }) => {
          if (err.code && MADE_MEANWHILE.has(err.code)) return (made = true);
          failedAt = performance.now();
          return false;
        },
      )
      .finally(() => (trying = undefined));
    return trying;
  };
}

/** `answer`, or false when it has not come within `ms` (it goes on; a later call may find it done). */
async function within(answer: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

const tables = new WeakMap<pg.Pool, () => Promise<boolean>>();

/**
 * Counts requests in PostgreSQL, so every API process on the database spends one allowance per
 * key (rate-limiter-flexible's RateLimiterPostgres: one upsert per request, the window as in
 * memory.ts, ends computed from this process's clock). When the database fails or does not
 * answer within `timeoutMs`, an in-memory limiter of the same allowance answers instead (per
 * process, as without PostgreSQL): an outage slows nothing down and lifts no limit entirely.
 */
export function createPgRateLimiter(pool: pg.Pool, settings: RateLimitSettings, opts: PgRateLimiterOptions): RateLimiter {
  let ensureTable = tables.get(pool);
  if (!ensureTable) tables.set(pool, (ensureTable = tableMaker(pool)));
  const window = windowOf(settings, opts.name);
  const timeoutMs = opts.timeoutMs ?? RATE_LIMIT_STORE_TIMEOUT_MS;
  const insurance = new RateLimiterMemory(window);
  const counters = new RLWrapperTimeouts({
    limiter: new RateLimiterPostgres({ ...window, storeClient: pool, storeType: 'pool', tableName: RATE_LIMITS_TABLE, tableCreated: true }),
    insuranceLimiter: insurance,
    timeoutMs,
  });
  const shared = limiterOver(counters, settings);
  const local = limiterOver(insurance, settings);
  return {
    take: async (key) => ((await within(ensureTable(), timeoutMs)) ? shared.take(key) : local.take(key)),
  };
}

/** The limiters on the database's dialect: in memory on SQLite (one process), shared in PostgreSQL. */
export function rateLimitersOn(database: Database): RateLimiters {
  return onDialect<RateLimiters>(database, {
    sqlite: () => createMemoryRateLimiter,
    postgres: (h) => (settings, name) => createPgRateLimiter(h.pool, settings, { name }),
  });
}
