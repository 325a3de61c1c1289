import pg from 'pg';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement } from '../db/pg/tx.ts';
import { leaseSql, type LeaseTable } from './lease-store.ts';
import type { LeaseLock } from './lock-store.ts';

/** leaseSql's positional `?` as PostgreSQL's `$1`, `$2`... in order. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * The lease lock on a named row, on PostgreSQL: the same conditional UPDATEs as on SQLite
 * (src/jobs/lease-store.ts). Under READ COMMITTED a second taker waits for the first's row
 * lock and re-checks the lease on the row it committed, so of two takers one wins.
 */
export function createPgLeaseLock(h: PgDatabase, table: Omit<LeaseTable, 'skipLocked'>): LeaseLock {
  const sql = leaseSql({ ...table, skipLocked: ' FOR UPDATE SKIP LOCKED' });
  const take = statement(`${table.table}_lease_take`, numbered(sql.take()));
  const release = statement(`${table.table}_lease_release`, numbered(sql.finish()));
  return {
    take: async (id, owner, now, leaseMs) => (await take(h.pool, [owner, now + leaseMs, id, now])).rowCount === 1,
    release: async (id, owner) => void (await release(h.pool, [id, owner])),
  };
}

/**
 * A lock per name across every process on the database: a session-level PostgreSQL advisory
 * lock (`pg_try_advisory_lock(hashtext(space), hashtext(name))`), the lock the issue asks for
 * around an oauth2 refresh. The locks of a process are held on one dedicated connection
 * (outside the pool, so holding them never starves the queries made while they are held),
 * opened when the first is taken and closed `idleMs` after the last is released. When the
 * process dies, or that connection drops, PostgreSQL releases every lock held on it at once:
 * no lease to wait out. Two names that hash alike only make their holders wait for each other.
 *
 * A LeaseLock: `now` and `leaseMs` are unused (the lock lives as long as its holder's
 * connection); a name needs no row. Within the process a name is held by one owner at a time
 * (advisory locks are re-entrant per session, so this process's own takers are told apart here).
 */
export function createPgAdvisoryLock(h: PgDatabase, space: string, idleMs = 1000): LeaseLock {
  const held = new Map<string, string>();
  let session: Promise<pg.Client> | undefined;

  const open = (): Promise<pg.Client> => {
    const client = new pg.Client({ ...h.pool.options, application_name: 'mimic-locks' });
    const opening = client.connect().then(() => client);
    const lost = () => {
      // PostgreSQL released every lock of this session: none is ours any more.
      if (session === opening) {
        session = undefined;
        held.clear();
      }
      client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    opening.catch(lost);
    return opening;
  };

  /**
   * Closes the connection a moment after the last lock is released (a take in progress counts
   * as held): waiters polling for a lock, and bursts of refreshes, keep using it.
   */
  let idle: NodeJS.Timeout | undefined;
  const closeIfIdle = () => {
    if (held.size > 0 || !session || idle) return;
    idle = setTimeout(() => {
      idle = undefined;
      if (held.size > 0 || !session) return;
      const closing = session;
      session = undefined;
      void closing.then((c) => c.end()).catch(() => {});
    }, idleMs);
  };

  return {
    async take(name, owner) {
      if (held.has(name)) return false;
      held.set(name, owner);
      let got = false;
      try {
        const client = await (session ??= open());
        got = (await client.query<{ got: boolean }>({ name: 'mimic_advisory_try', text: 'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS got', values: [space, name] })).rows[0]!.got;
        return got;
      } finally {
        if (!got && held.get(name) === owner) {
          held.delete(name);
          closeIfIdle();
        }
      }
    },
    async release(name, owner) {
      if (held.get(name) !== owner) return;
      try {
        await (await session)?.query({ name: 'mimic_advisory_unlock', text: 'SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', values: [space, name] });
      } catch {
        // The connection failed: PostgreSQL ends its session, and with it the lock.
      } finally {
        if (held.get(name) === owner) held.delete(name);
        closeIfIdle();
      }
    },
  };
}
