import pg from 'pg';
import type { PgDatabase } from './pg/database.ts';
import { createDataMigrationStore, type DataMigrationStore } from './data-migrations.ts';
import { onDialect, type Database } from './database.ts';

/** The first key of every data migration's advisory lock ('md'); the second is the hash of its name. */
export const DATA_MIGRATION_LOCK = 0x6d64;

const applied = 'SELECT 1 FROM data_migrations WHERE name = $1';
const record = 'INSERT INTO data_migrations (name, report, applied_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING';

/**
 * The PostgreSQL DataMigrationStore. A migration runs under an advisory lock of its own name,
 * held by a session (not a transaction: an open transaction would keep VACUUM from removing
 * the row versions a scrub rewrote), and is recorded by a conditional insert of its name. Of
 * processes starting together, one runs it; the others wait for the lock and find it recorded.
 * A process that dies while running it drops the lock with its connection, unrecorded. (Its
 * statements are not prepared: each runs once per start.)
 *
 * Scrubbing: PostgreSQL keeps a rewritten row's old version until VACUUM removes it, so a scrub
 * is followed by a VACUUM of the database. It does not zero the space it frees, and the WAL and
 * backups keep what they held: the old values go from the tables, not from the disk, which is
 * the storage's encryption to protect.
 */
export function createPgDataMigrationStore(h: PgDatabase): DataMigrationStore {
  const { pool } = h;
  return {
    async once(name, apply, at) {
      // Its own connection, outside the pool: the migration's queries use the pool meanwhile.
      const c = new pg.Client({ ...pool.options, application_name: 'mimic-data-migrations' });
      c.on('error', () => {});
      await c.connect();
      try {
        // Waiting while another process runs a long migration is no statement to time out.
        await c.query('SET statement_timeout = 0');
        await c.query('SELECT pg_advisory_lock($1, hashtext($2))', [DATA_MIGRATION_LOCK, name]);
        if ((await c.query(applied, [name])).rowCount) return undefined;
        const report = await apply();
        if (report === null) return undefined;
        return (await c.query(record, [name, JSON.stringify(report), at()])).rowCount ? report : undefined;
      } finally {
        // Closing the session releases its lock, also when the migration failed.
        await c.end().catch(() => {});
      }
    },
    async scrubbing(fn) {
      const result = await fn();
      await pool.query('VACUUM');
      return { result, clean: true };
    },
  };
}

/** The DataMigrationStore on the database's dialect. */
export const dataMigrationStoreOn = (database: Database): DataMigrationStore => onDialect(database, { sqlite: createDataMigrationStore, postgres: createPgDataMigrationStore });
