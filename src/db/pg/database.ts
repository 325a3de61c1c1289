import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from '../schema-pg.ts';
import { createPgChanges, type PgChanges } from './changes.ts';
import type { PgSettings } from '../../config.ts';

export type { PgSettings };

/**
 * PostgreSQL under every store (MIMIC_DATABASE_URL). One pool per process; the pg-core schema
 * (src/db/schema-pg.ts) mirrors the SQLite one table for table, with its own migrations in
 * drizzle-pg/. Stores use the pool directly (named statements: prepared once per connection)
 * or drizzle over it. Nothing connects until the first query; `ready()` applies migrations.
 */
export interface PgDatabase {
  readonly dialect: 'postgres';
  readonly pool: pg.Pool;
  readonly db: NodePgDatabase<typeof schema>;
  /** Change notices across processes (LISTEN/NOTIFY): what per-process memories listen to. */
  readonly changes: PgChanges;
  /** Applies pending migrations (once per process; under an advisory lock, so processes starting together migrate once) and starts listening for changes. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('../../../drizzle-pg', import.meta.url));

/** Every process that migrates takes this lock first ('mimic' as bytes). */
export const MIGRATION_LOCK = 0x6d696d6963;

const INT8 = 20;
const NUMERIC = 1700;

/** Whole numbers come back as JS numbers (times are milliseconds in bigint columns; sums are numeric). */
function toNumber(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) && Number.isInteger(n)) throw new RangeError(`${text} is beyond a safe integer`);
  return n;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

export function openPgDatabase(settings: PgSettings): PgDatabase {
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.max,
    idleTimeoutMillis: settings.idleTimeoutMs,
    connectionTimeoutMillis: settings.connectionTimeoutMs,
    ...(settings.statementTimeoutMs > 0 ? { statement_timeout: settings.statementTimeoutMs } : {}),
    application_name: 'mimic',
    types,
  });
  // An idle connection the server drops (a restart, a failover) must not crash the process.
  pool.on('error', () => {});
  const changes = createPgChanges({ url: settings.url, pool, types });
  let readying: Promise<void> | undefined;
  return {
    dialect: 'postgres',
    pool,
    db: drizzle(pool, { schema }),
    changes,
    ready() {
      readying ??= (async () => {
        await migrateLocked(pool);
        await changes.start();
      })();
      return readying;
    },
    async close() {
      await changes.stop();
      await pool.end();
    },
  };
}

/** Applies drizzle-pg/ holding the migration lock: of processes starting at once, one migrates and the others find it done. */
export async function migrateLocked(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
