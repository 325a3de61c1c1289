import type { Store } from './client.ts';
import type { Logger } from '../log.ts';

/**
 * A data migration: code that rewrites stored rows with what only the running service has
 * (the vault's decrypted values), where a SQL migration in drizzle/ cannot. Modules declare
 * them (`ModuleInstance.dataMigrations`); the server runs the pending ones once the vault is
 * ready and before it listens, and records each in `data_migrations` so it runs once. Each
 * must be idempotent: two processes starting at once may both run it, and a crash before the
 * record is written runs it again at the next start.
 */
export interface DataMigration {
  /** Unique and never reused, e.g. `2026-11-agent-chats-mask-encoded-credentials`. */
  name: string;
  /** Answers what it did, as counts (recorded; never a stored value). */
  run(): Promise<Record<string, number>>;
  /**
   * It rewrites values that must not linger on disk: it runs inside `scrubbing` (below), and
   * is recorded only once the file and WAL hold no old copy, else it runs again at the next start.
   */
  scrubs?: boolean;
}

export interface DataMigrationStore {
  /**
   * Runs `apply` for the migration `name` unless it is recorded, then records it with the
   * report `apply` answers (null: left unrecorded, so it runs again at the next start).
   * Answers the report recorded now, or undefined. On PostgreSQL, of processes starting
   * together one runs it while the others wait, and then find it recorded; on SQLite two may
   * both run it (each migration is idempotent).
   */
  once(name: string, apply: () => Promise<Record<string, number> | null>, at: () => number): Promise<Record<string, number> | undefined>;
  /**
   * Runs `fn` with SQLite's secure_delete on (what a rewrite frees is zeroed), then rebuilds
   * the file (VACUUM: no stale copy in free pages or cell gaps) and checkpoints the WAL into
   * it, truncating the WAL to zero bytes. Answers whether both completed: another process's
   * open read can keep them from it (they are tried again at the next start's migrations).
   */
  scrubbing<T>(fn: () => Promise<T>): Promise<{ result: T; clean: boolean }>;
}

export function createDataMigrationStore(handle: Store): DataMigrationStore {
  const { sqlite } = handle;
  const byName = sqlite.prepare<[string], { name: string }>('SELECT name FROM data_migrations WHERE name = ?');
  const insert = sqlite.prepare<[string, string, number]>('INSERT OR IGNORE INTO data_migrations (name, report, applied_at) VALUES (?, ?, ?)');
  const truncateWal = (): boolean => {
    const [row] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return row?.busy === 0;
  };
  return {
    async once(name, apply, at) {
      if (byName.get(name) !== undefined) return undefined;
      const report = await apply();
      if (report === null) return undefined;
      insert.run(name, JSON.stringify(report), at());
      return report;
    },
    async scrubbing(fn) {
      const before = sqlite.pragma('secure_delete', { simple: true }) as number;
      sqlite.pragma('secure_delete = ON');
      const result = await fn().finally(() => sqlite.pragma(`secure_delete = ${before ? 'ON' : 'OFF'}`));
      let clean = true;
      try {
        sqlite.exec('VACUUM');
      } catch {
        clean = false; // SQLITE_BUSY: another connection is in a transaction
      }
      return { result, clean: truncateWal() && clean };
    },
  };
}

/** Runs the migrations not yet recorded, in order; a failure stops the start (and is retried at the next). */
export async function runDataMigrations(store: DataMigrationStore, migrations: readonly DataMigration[], now: () => number, log: Logger): Promise<void> {
  for (const m of migrations) {
    const recorded = await store.once(
      m.name,
      async () => {
        const { result: report, clean } = m.scrubs ? await store.scrubbing(() => m.run()) : { result: await m.run(), clean: true };
        if (clean) return report;
        log.warn('data migration applied, but another process kept the database from being rebuilt or its WAL from being truncated: old values may remain on disk until it runs again at the next start', { migration: m.name, ...report });
        return null;
      },
      now,
    );
    if (recorded) log.info('data migration applied', { migration: m.name, ...recorded });
  }
}
