import type Database from 'better-sqlite3';

/**
 * How long after another connection or process commits a change this process may still
 * answer from what it remembered: it looks for such commits at most once per this many
 * milliseconds. The look is a read transaction of its own (a lock and an unlock of the
 * `-shm` file), which cost 2 to 11 µs per request under load (docs/performance.md).
 */
export const COMMITS_RECHECK_MS = 1;

/** A number that moves when the database may have changed: see `watchCommits`. */
export interface CommitWatch {
  /**
   * Differs from the number returned before whenever this store said `changed()` since, or,
   * from COMMITS_RECHECK_MS after it committed, another connection or process committed
   * anything (SQLite's `data_version`).
   */
  version(): number;
  /** This connection's own write: the version moves at once (data_version does not see it). */
  changed(): void;
}

/** For stores whose callers remember answers (verified keys, sessions) until the database changes. */
export function watchCommits(sqlite: Database.Database, recheckMs = COMMITS_RECHECK_MS): CommitWatch {
  const dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  let seenDataVersion = -1;
  let lookedAt = -Infinity;
  let version = 0;
  return {
    version() {
      const now = performance.now();
      if (now - lookedAt < recheckMs) return version;
      lookedAt = now;
      const seen = dataVersion.get()!;
      if (seen !== seenDataVersion) {
        seenDataVersion = seen;
        version++;
      }
      return version;
    },
    changed() {
      version++;
    },
  };
}
