import type pg from 'pg';
import { getTableColumns } from 'drizzle-orm';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { enqueuePgWebhook } from '../db/pg/outbox.ts';
import { resources } from '../db/schema-pg.ts';
import { randomId, type IdFactory } from '../clock.ts';
import { insertJob } from '../jobs/store-pg.ts';
import { createSqliteResourceStore, type Claim, type EnqueueJob, type JobToQueue, type NewResource, type ResourceRow, type ResourceStore } from './store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** Every column, named as the row's fields (`user_id AS "userId"`), in the schema's order. */
const COLUMNS = Object.entries(getTableColumns(resources))
  .map(([field, column]) => `"${column.name}" AS "${field}"`)
  .join(', ');

const unfinished = 'id = $1 AND finished_at IS NULL';

// Credits: a charge is one conditional UPDATE (it re-checks the balance on the row it locks,
// so two charges racing never take it below zero); a refund only adds.
const charge = statement('mimic_resources_charge', 'UPDATE users SET credits = credits - $2 WHERE id = $1 AND credits >= $2');
const refund = statement('mimic_resources_refund', 'UPDATE users SET credits = credits + $2 WHERE id = $1');
const insert = statement(
  'mimic_resources_insert',
  `INSERT INTO resources (id, kind, user_id, status, request, details, webhook_url, credits, created_at, modified_at)
   VALUES ($1, $2, $3, 'created', $4, $5, $6, $7, $8, $8)`,
);
const owned = statement('mimic_resources_owned', `SELECT ${COLUMNS} FROM resources WHERE id = $1 AND user_id = $2 AND kind = $3`);
const byId = statement('mimic_resources_by_id', `SELECT ${COLUMNS} FROM resources WHERE id = $1`);
// One statement for a page with and without a status filter (NULL: every state) and with and without a cursor.
const page = statement(
  'mimic_resources_page',
  `SELECT ${COLUMNS} FROM resources
   WHERE user_id = $1 AND kind = $2 AND ($3::text IS NULL OR status = $3)
     AND ($4::bigint IS NULL OR created_at < $4 OR (created_at = $4 AND id < $5))
   ORDER BY created_at DESC, id DESC LIMIT $6`,
);
const inState = statement(
  'mimic_resources_in_state',
  `SELECT ${COLUMNS} FROM resources WHERE kind = $1 AND status = $2 AND finished_at IS NULL ORDER BY created_at, id LIMIT $3`,
);
const start = statement(
  'mimic_resources_start',
  `UPDATE resources SET status = 'started', started_at = COALESCE(started_at, $2), modified_at = $2 WHERE ${unfinished} RETURNING ${COLUMNS}`,
);
const setStatus = statement('mimic_resources_set_status', `UPDATE resources SET status = $2, modified_at = $3 WHERE ${unfinished}`);
// Progress never goes back (see the SQLite store): the furthest fraction reached stays until a new run passes it.
const progress = statement(
  'mimic_resources_progress',
  `UPDATE resources SET progress_done = $2, progress_total = $3, modified_at = $4
   WHERE ${unfinished} AND (progress_done IS NULL OR progress_total IS NULL OR progress_done * $3 <= $2 * progress_total)`,
);
const setDetails = statement('mimic_resources_set_details', `UPDATE resources SET details = $2, modified_at = $3 WHERE ${unfinished}`);
const end = statement(
  'mimic_resources_end',
  `UPDATE resources SET status = $2, result = $3, error = $4, progress_done = NULL, progress_total = NULL, modified_at = $5, finished_at = $5
   WHERE ${unfinished} RETURNING ${COLUMNS}`,
);
const advance = statement(
  'mimic_resources_advance',
  `UPDATE resources SET status = $3, details = $4, webhook_url = $5, modified_at = $6
   WHERE id = $1 AND status = $2 AND finished_at IS NULL RETURNING ${COLUMNS}`,
);
const amend = statement(
  'mimic_resources_amend',
  `UPDATE resources SET result = $4, modified_at = $5 WHERE id = $1 AND user_id = $2 AND kind = $3 AND status = 'done' RETURNING ${COLUMNS}`,
);
const claim = statement(
  'mimic_resources_claim',
  'UPDATE resources SET claimed_by = $5 WHERE id = $1 AND user_id = $2 AND kind = $3 AND status = $4 AND claimed_by IS NULL',
);
const release = statement('mimic_resources_release', 'UPDATE resources SET claimed_by = NULL WHERE claimed_by = $1');
const remove = statement('mimic_resources_remove', `DELETE FROM resources WHERE id = $1 AND user_id = $2 AND kind = $3 RETURNING ${COLUMNS}`);

const first = (res: pg.QueryResult): ResourceRow | undefined => res.rows[0] as ResourceRow | undefined;

/** Thrown inside a transaction to roll it back when a step after a write finds nothing to do. */
class Rollback extends Error {}

/**
 * The PostgreSQL ResourceStore: the same contract as the SQLite one (test/stores/contracts/).
 * Every change of state is ONE conditional statement (`... WHERE finished_at IS NULL
 * RETURNING`): under READ COMMITTED a second writer waits for the first's row lock and then
 * re-checks the condition on the committed row, so of two processes that race to finish or
 * delete a record exactly one finds it unfinished. The refund, the webhook and the follow-up
 * job go in the same transaction as the winning statement, so they happen once or not at all.
 * Locks are taken in one order (the resource's row, then a resource it claimed, then the
 * user's row), so these transactions do not deadlock one another.
 */
export function createPgResourceStore(h: PgDatabase, newId: IdFactory = randomId): ResourceStore {
  const { pool } = h;

  // Due at once by the database's clock (the queue's); `now` is the creation time of the caller's rows.
  const queue = (c: pg.PoolClient, job: JobToQueue, resourceId: string, userId: string, now: number) =>
    insertJob(c, { id: newId('job'), kind: job.kind, resourceId, userId, maxAttempts: job.maxAttempts, now });

  /** Charge, row and job on `c` (in its transaction); false when the balance is short (nothing written). */
  async function createOn(c: pg.PoolClient, row: NewResource, job: JobToQueue | null): Promise<boolean> {
    if ((await charge(c, [row.userId, row.credits])).rowCount === 0) return false;
    await insert(c, [row.id, row.kind, row.userId, row.request, row.details, row.webhookUrl, row.credits, row.now]);
    if (job) await queue(c, job, row.id, row.userId, row.now);
    return true;
  }

  return {
    create: (row, job) => withTx(pool, (c) => createOn(c, row, job)),
    async createClaiming(row, job, cl: Claim) {
      try {
        return await withTx(pool, async (c) => {
          if ((await claim(c, [cl.id, row.userId, cl.kind, cl.status, row.id])).rowCount === 0) return 'claimed' as const;
          // A short balance undoes the claim: the consent stays free.
          if (!(await createOn(c, row, job))) throw new Rollback();
          return 'created' as const;
        });
      } catch (err) {
        if (err instanceof Rollback) return 'credits';
        throw err;
      }
    },
    advance: (id, step) =>
      withTx(pool, async (c) => {
        const row = first(await advance(c, [id, step.from, step.to, step.details, step.webhookUrl, step.now]));
        if (row && step.job) await queue(c, step.job, row.id, row.userId, step.now);
        return row;
      }),
    amendResult: async (userId, kind, id, result, now) => first(await amend(pool, [id, userId, kind, result, now])),
    get: async (userId, kind, id) => first(await owned(pool, [id, userId, kind])),
    getById: async (id) => first(await byId(pool, [id])),
    list: async (userId, kind, limit, cursor, status) =>
      (await page(pool, [userId, kind, status ?? null, cursor?.createdAt ?? null, cursor?.id ?? null, limit])).rows as ResourceRow[],
    listInState: async (kind, status, limit) => (await inState(pool, [kind, status, limit])).rows as ResourceRow[],
    start: async (id, now) => first(await start(pool, [id, now])),
    setStatus: async (id, status, now) => ((await setStatus(pool, [id, status, now])).rowCount ?? 0) > 0,
    progress: async (id, done, total, now) => void (await progress(pool, [id, done, total, now])),
    setDetails: async (id, details, now) => void (await setDetails(pool, [id, details, now])),
    finish: (id, e) =>
      withTx(pool, async (c) => {
        const row = first(await end(c, [id, e.status, e.result ?? null, e.error ?? null, e.now]));
        if (!row) return undefined;
        // A resource that failed gives back what it claimed (its consent may be used again).
        if (e.refund) await release(c, [row.id]);
        if (e.refund && row.credits > 0) await refund(c, [row.userId, row.credits]);
        if (row.webhookUrl) await enqueuePgWebhook(c, { userId: row.userId, event: `${row.kind}.${row.status}`, resourceId: row.id, url: row.webhookUrl, now: e.now });
        if (e.then) await queue(c, e.then, e.then.resourceId, row.userId, e.now);
        return row;
      }),
    remove: (userId, kind, id) =>
      withTx(pool, async (c) => {
        // The delete waits for a finish in flight and then sees its outcome: a record that
        // finished meanwhile is deleted without a refund.
        const row = first(await remove(c, [id, userId, kind]));
        // The claimed resource before the user's row: the order a claiming creation locks them in.
        if (row && (row.finishedAt === null || row.status !== 'done')) await release(c, [row.id]);
        if (row && row.finishedAt === null && row.credits > 0) await refund(c, [userId, row.credits]);
        return row;
      }),
  };
}

/**
 * The ResourceStore on the database's dialect. On SQLite `enqueueJob` (synchronous) runs inside
 * the store's transaction; on PostgreSQL the store inserts the job row in its own transaction.
 */
export const resourceStoreOn = (database: Database, enqueueJob: EnqueueJob): ResourceStore =>
  onDialect(database, { sqlite: (h) => createSqliteResourceStore(h, enqueueJob), postgres: (h) => createPgResourceStore(h) });
