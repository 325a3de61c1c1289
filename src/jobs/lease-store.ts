/**
 * The one lease mechanism of the service (src/jobs/README.md). Jobs, compute tasks, webhook
 * messages and the oauth2 refresh lock all hold work the same way: a row is owned while
 * `owner = ? AND until > now`, and every change a holder makes names its owner value (a
 * compare-and-set). This file writes that SQL once; each store prepares the statements it
 * needs from it, once, at creation.
 *
 * Claims are ONE statement, `UPDATE ... WHERE id IN (SELECT id ... LIMIT ?<SKIP_LOCKED>)
 * RETURNING *`. On SQLite the statement runs under the database's single write lock, so two
 * connections can never take the same row. On PostgreSQL the same text is not enough (two
 * READ COMMITTED claimers both see the row as free): the PostgreSQL store sets
 * SKIP_LOCKED to ` FOR UPDATE SKIP LOCKED`, so each claimer locks the rows it picks and
 * skips the ones another claimer holds.
 *
 * On PostgreSQL leases are also timed by the DATABASE's clock (`clock: PG_NOW_MS`): processes
 * whose clocks disagree still agree on when a lease ran out. Then every `now` parameter is
 * gone (the SQL reads the clock itself) and each `until` parameter is the lease's length.
 */

/** Appended to every claim's sub-select. SQLite: empty (one writer); PostgreSQL: ' FOR UPDATE SKIP LOCKED'. */
export const SQLITE_SKIP_LOCKED = '';
export const PG_SKIP_LOCKED = ' FOR UPDATE SKIP LOCKED';
/**
 * The database server's time in integer milliseconds, when the statement started (not the
 * transaction). `statement_timestamp()` is stable: one value for the whole statement, so a
 * claim's comparisons can use an index (`clock_timestamp()` is volatile: read again for every
 * row, and no index condition).
 */
export const PG_NOW_MS = '(extract(epoch from statement_timestamp()) * 1000)::bigint';

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... in order (the lease SQL has no `?` inside literals). */
export const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export interface LeaseTable {
  table: string;
  /** The primary key column. */
  id: string;
  /** Column naming the holder: a worker, a process, or a random lease value. */
  owner: string;
  /** Column with the end of the lease, integer ms. */
  until: string;
  /** Dialect suffix of claim sub-selects (SQLITE_SKIP_LOCKED or PG_SKIP_LOCKED). */
  skipLocked: string;
  /**
   * SQL that reads the current time in ms (PG_NOW_MS): leases timed by the database. Unset:
   * the caller passes `now` and `until` as parameters (SQLite, one process's clock).
   */
  clock?: string;
}

export interface ClaimShape {
  /** More `col = expr` assignments after the owner and until ones (their `?` come after owner, until). */
  set?: string;
  /** Which rows may be taken: due and free, or held under a lease that ran out (reclaim). */
  claimable: string;
  order: string;
}

/**
 * The SQL of every lease operation on one table. Parameters are positional `?`, in the order
 * each doc comment gives; with `clock` set, drop the `now` ones and pass the lease's length
 * as `until` (PostgreSQL runs the text through `numbered`).
 */
export function leaseSql(t: LeaseTable) {
  const extra = (set?: string) => (set ? `, ${set}` : '');
  const now = t.clock ?? '?';
  const until = t.clock ? `${t.clock} + ?` : '?';
  return {
    /** A lease is live (fragment): params now. */
    live: `${t.owner} IS NOT NULL AND ${t.until} > ${now}`,
    /** A lease is free or ran out (fragment): params now. */
    free: `(${t.owner} IS NULL OR ${t.until} IS NULL OR ${t.until} <= ${now})`,
    /** Params: owner, until, ...set params, ...claimable params, limit. */
    claim: (s: ClaimShape) =>
      `UPDATE ${t.table} SET ${t.owner} = ?, ${t.until} = ${until}${extra(s.set)}
       WHERE ${t.id} IN (SELECT ${t.id} FROM ${t.table} WHERE ${s.claimable} ORDER BY ${s.order} LIMIT ?${t.skipLocked})
       RETURNING *`,
    /** Takes one named row when its lease is free or ran out (a lock). Params: owner, until, ...set, id, now, ...where. */
    take: (s: { set?: string; where?: string } = {}) =>
      `UPDATE ${t.table} SET ${t.owner} = ?, ${t.until} = ${until}${extra(s.set)}
       WHERE ${t.id} = ? AND (${t.owner} IS NULL OR ${t.until} IS NULL OR ${t.until} <= ${now})${s.where ? ` AND ${s.where}` : ''}`,
    /** Extends a lease we still hold. Params: until, ...set, id, owner, ...where. */
    renew: (s: { set?: string; where?: string } = {}) =>
      `UPDATE ${t.table} SET ${t.until} = ${until}${extra(s.set)} WHERE ${t.id} = ? AND ${t.owner} = ?${s.where ? ` AND ${s.where}` : ''}`,
    /**
     * Ends our lease and applies `set` (complete, fail, requeue, release) only while we still
     * hold it: a holder whose lease was reclaimed changes nothing. Params: ...set, id, owner, ...where.
     */
    finish: (s: { set?: string; keepOwner?: boolean; where?: string } = {}) =>
      `UPDATE ${t.table} SET ${[s.keepOwner ? '' : `${t.owner} = NULL`, `${t.until} = NULL`, s.set ?? ''].filter(Boolean).join(', ')}
       WHERE ${t.id} = ? AND ${t.owner} = ?${s.where ? ` AND ${s.where}` : ''}`,
  };
}
