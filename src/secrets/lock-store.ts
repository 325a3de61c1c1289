import { onDialect, type Database } from '../db/database.ts';
import { createPgAdvisoryLock } from '../jobs/lock-store-pg.ts';
import { createLeaseLock, type LeaseLock, type SqliteHandle } from '../jobs/lock-store.ts';

/** The oauth2 refresh lock on `secrets` rows (src/jobs/lock-store.ts's lease lock), one per connection, prepared once. */
const locks = new WeakMap<SqliteHandle, LeaseLock>();
export function secretsLock(sqlite: SqliteHandle): LeaseLock {
  let lock = locks.get(sqlite);
  if (!lock) locks.set(sqlite, (lock = createLeaseLock(sqlite, { table: 'secrets', id: 'id', owner: 'lock_owner', until: 'lock_until' })));
  return lock;
}

/**
 * The oauth2 refresh lock of a database: on SQLite the lease on the secret's row; on
 * PostgreSQL an advisory lock per secret id, held on a connection of its own for the refresh
 * (released by `release`, or by PostgreSQL when the process dies). The secrets module builds it
 * from the platform's handle, once per process.
 */
export const createSecretLock = (handle: Database): LeaseLock =>
  onDialect(handle, { sqlite: (h) => secretsLock(h.sqlite), postgres: (h) => createPgAdvisoryLock(h, 'secrets.oauth2_refresh') });
