import { inject } from 'vitest';
import { openPgDatabase, type PgDatabase } from '../../src/db/pg/database.ts';
import type { SecretDeps } from '../../src/secrets/deps.ts';
import { freshPostgres } from '../stores/dialects.ts';
import { banner } from '../helpers/postgres-setup.ts';

/**
 * Several mimic processes on one PostgreSQL database, in one test process: each "process" is
 * its own PgDatabase (pool, change listener, lock connection), as separate API processes have
 * them. They share only the database.
 */
export interface Processes {
  url: string;
  /** A new process on the database, migrated and listening. */
  open(): Promise<PgDatabase>;
  close(): Promise<void>;
}

/** The run's cluster URL, or null (with a loud banner naming the file) when the run has none. */
export function clusterFor(file: string): string | null {
  const admin = inject('postgresUrl');
  if (!admin) console.error(banner([`PostgreSQL SKIPPED: ${file} needs the run’s cluster.`]));
  return admin;
}

export async function processesOn(admin: string): Promise<Processes> {
  const db = await freshPostgres(admin);
  const opened: PgDatabase[] = [];
  return {
    url: db.url,
    async open() {
      const h = openPgDatabase({ url: db.url, max: 4, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });
      opened.push(h);
      await h.ready();
      return h;
    },
    async close() {
      await Promise.all(opened.map((h) => h.close()));
      await db.drop();
    },
  };
}

/** The vault's seal and open as plain text, for tests of what happens around sealed values (not the encryption). Needs a `kek_test` vault key row. */
export const plainVault: SecretDeps['vault'] = {
  seal: async (_u, _s, values) => Object.entries(values).map(([field, value]) => ({ field, kekId: 'kek_test', wrappedKey: 'none', ciphertext: value })),
  open: async (_u, _s, rows) => Object.fromEntries(rows.map((r) => [r.field, r.ciphertext])),
};

/** A user and the vault key row `plainVault` names. */
export async function seedOwner(h: PgDatabase, userId: string): Promise<void> {
  await h.pool.query(`INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $1, 0, '[]', 0)`, [userId]);
  await h.pool.query(`INSERT INTO vault_keys (id, provider, wrapped, status, created_at) VALUES ('kek_test', 'local', 'none', 'primary', 0) ON CONFLICT DO NOTHING`);
}
