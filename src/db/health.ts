import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

/**
 * The database's readiness checks (src/platform/readiness.ts runs them with a timeout): it
 * answers, and it carries this version's migrations. Each resolves when fine and throws a
 * sentence when not.
 */

/** `SELECT 1` on PostgreSQL (a connection from the pool and a round trip); a read of the schema table on SQLite. */
export async function databaseAnswers(database: Database): Promise<void> {
  if (database.dialect === 'postgres') {
    await database.pool.query({ name: 'mimic_ready', text: 'SELECT 1' });
    return;
  }
  database.sqlite.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
}

const journals = { sqlite: '../../drizzle/meta/_journal.json', postgres: '../../drizzle-pg/meta/_journal.json' } as const;
const latest = new Map<keyof typeof journals, number>();

/** When this version's newest migration of the dialect was made (drizzle records it as the applied row's created_at). */
function newestMigration(dialect: keyof typeof journals): number {
  let when = latest.get(dialect);
  if (when === undefined) {
    const journal = JSON.parse(readFileSync(fileURLToPath(new URL(journals[dialect], import.meta.url)), 'utf8')) as { entries: { when: number }[] };
    when = Math.max(...journal.entries.map((e) => e.when));
    latest.set(dialect, when);
  }
  return when;
}

/**
 * This version's migrations are applied: the newest one drizzle recorded is at least this
 * version's newest. A newer database (a later version migrated it during a rolling restart) is
 * fine: migrations only add (docs/deploy.md).
 */
export async function migrationsApplied(database: Database): Promise<void> {
  const applied =
    database.dialect === 'postgres'
      ? (await database.pool.query<{ at: number | null }>({ name: 'mimic_ready_migrations', text: 'SELECT max(created_at) AS at FROM drizzle.__drizzle_migrations' })).rows[0]?.at
      : (database.sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null } | undefined)?.at;
  if (applied === null || applied === undefined || Number(applied) < newestMigration(database.dialect)) {
    throw new Error('the database lacks migrations of this version (run `mimic migrate`, or start one server of this version)');
  }
}
