import type { PgDatabase } from './pg/database.ts';
import { statement } from './pg/tx.ts';
import { createDataMigrationStore, type DataMigrationStore } from './data-migrations.ts';
import { onDialect, type Database } from './database.ts';

/** The first key of every data migration's advisory lock ('md'); the second is the hash of its name. */
export const DATA_MIGRATION_LOCK = 0x6d64;

const applied = statement('mimic_data_migration_applied', 'SELECT 1 FROM data_migrations WHERE name = $1');
const record = statement('mimic_data_migration_record', 'INSERT INTO data_migrations (name, report, applied_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING');

/**
 * The PostgreSQL DataMigrationStore. A migration runs under an advisory lock of its own name,
 * held by a session (not a transaction: an open transaction would keep VACUUM from removing
 * the row versions a scrub rewrote), and is recorded by a conditional insert of its name. Of
 * processes starting together, one runs it; the others wait for the lock and find it recorded.
 * A process that dies while running it drops the lock with its connection, unrecorded.
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
      const c = await pool.connect();
      try {
        await c.query('SELECT pg_advisory_lock($1, hashtext($2))', [DATA_MIGRATION_LOCK, name]);
        try {
          if ((await applied(c, [name])).rowCount) return undefined;
          const report = await apply();
          if (report === null) return undefined;
          return (await record(c, [name, JSON.stringify(report), at()])).rowCount ? report : undefined;
        } finally {
          await c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [DATA_MIGRATION_LOCK, name]);
        }
      } finally {
        c.release();
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
