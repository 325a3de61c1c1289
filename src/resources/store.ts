import { and, desc, eq, getTableColumns, gte, isNull, sql } from 'drizzle-orm';
import type { Store } from '../db/client.ts';
import { olderThan } from '../db/keyset.ts';
import { resources, users } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';
import { enqueueWebhook } from '../db/outbox.ts';

export type ResourceRow = typeof resources.$inferSelect;

/** A job to queue with a new resource, in the same transaction as its charge and its row. */
export interface JobToQueue {
  kind: string;
  maxAttempts: number;
}

/** The synchronous job insert the store calls inside its transaction (the job queue's `enqueue`). */
export type EnqueueJob = (input: { kind: string; resourceId: string; userId: string; maxAttempts: number }) => unknown;

export interface NewResource {
  id: string;
  kind: string;
  userId: string;
  request: string;
  details: string;
  webhookUrl: string | null;
  credits: number;
  now: number;
}

/** A move of an unfinished resource from one state to another, with new working fields, webhook and job (e.g. a consent's upload). */
export interface Advance {
  from: string;
  to: string;
  details: string;
  webhookUrl: string | null;
  job: JobToQueue | null;
  now: number;
}

/** Another resource of the same user that a new one uses up (an avatar's consent): it must be of `kind`, in `status`, and not claimed yet. */
export interface Claim {
  id: string;
  kind: string;
  status: string;
}

/** A job that ending a resource queues, for the resource's user (an avatar's talking preview: its resource is the presenter). */
export interface FollowUpJob {
  kind: string;
  resourceId: string;
  maxAttempts: number;
}

/** How a resource ends: its final status, whether its credits come back, and a job it queues. */
export interface Ending {
  status: string;
  result?: string | null;
  error?: string | null;
  refund: boolean;
  /** Queued in the same transaction as the ending: both happen or neither. */
  then?: FollowUpJob;
  now: number;
}

/**
 * The lifecycle of every asynchronous resource, written once. Each state change is ONE
 * conditional statement on `finished_at IS NULL` (with RETURNING), so of two processes that
 * race to finish, fail or delete a record, exactly one wins: a record is refunded at most
 * once and announced (webhook) at most once. Inside, the SQLite code is synchronous.
 */
export interface ResourceStore {
  /** Charges `credits`, inserts the row and queues its job, all or nothing; false when the balance is short. */
  create(row: NewResource, job: JobToQueue | null): Promise<boolean>;
  /**
   * As `create`, and in the same transaction claims another resource of the user: 'claimed'
   * when that one is missing, in another state or already claimed (nothing is written),
   * 'credits' when the balance is short (nothing is written).
   */
  createClaiming(row: NewResource, job: JobToQueue | null, claim: Claim): Promise<'created' | 'credits' | 'claimed'>;
  /** Moves an unfinished resource from `from` to `to` with its new details and webhook, and queues its job, in one transaction; the row, or undefined when it was not in `from`. */
  advance(id: string, step: Advance): Promise<ResourceRow | undefined>;
  /** Replaces the result of the user's resource that ended `done` (a presenter renamed); the row, or undefined. */
  amendResult(userId: string, kind: string, id: string, result: string, now: number): Promise<ResourceRow | undefined>;
  /** The user's resource of that kind, or undefined. */
  get(userId: string, kind: string, id: string): Promise<ResourceRow | undefined>;
  getById(id: string): Promise<ResourceRow | undefined>;
  /** Up to `limit` of the user's resources of a kind (in `status`, when given), newest first, after `cursor`. */
  list(userId: string, kind: string, limit: number, cursor: PageCursor | null, status?: string): Promise<ResourceRow[]>;
  /** Up to `limit` resources of a kind in a state, of every user, oldest first (an operator's review queue). */
  listInState(kind: string, status: string, limit: number): Promise<ResourceRow[]>;
  /** Marks an unfinished resource `started` (keeping the first start time); undefined when it is finished or gone. */
  start(id: string, now: number): Promise<ResourceRow | undefined>;
  /** Moves an unfinished resource to another unfinished state a kind declares (e.g. `validating`). */
  setStatus(id: string, status: string, now: number): Promise<boolean>;
  /** Records progress of an unfinished resource; a report behind the stored one (a render run again from its start) changes nothing. */
  progress(id: string, done: number, total: number, now: number): Promise<void>;
  /** Replaces the kind's working fields of an unfinished resource. */
  setDetails(id: string, details: string, now: number): Promise<void>;
  /**
   * Ends an unfinished resource: sets the final status, refunds its credits when asked,
   * queues its webhook (event `<kind>.<status>`) and its follow-up job, in one transaction. Undefined when it had
   * already ended or is gone: then nothing happened.
   */
  finish(id: string, ending: Ending): Promise<ResourceRow | undefined>;
  /** Deletes the user's resource, refunding it when it had not finished; returns the row as it was. */
  remove(userId: string, kind: string, id: string): Promise<ResourceRow | undefined>;
}

export function createSqliteResourceStore(handle: Store, enqueueJob: EnqueueJob): ResourceStore {
  const { db, sqlite } = handle;
  const r = resources;
  const p = sql.placeholder;
  /** A placeholder as a value of SET (drizzle types SET values as SQL). */
  const v = (name: string) => sql`${p(name)}`;
  const unfinished = (id = p('id')) => and(eq(r.id, id), isNull(r.finishedAt));

  const charge = db
    .update(users)
    .set({ credits: sql`${users.credits} - ${p('credits')}` })
    .where(and(eq(users.id, p('userId')), gte(users.credits, p('credits'))))
    .prepare();
  const refund = db
    .update(users)
    .set({ credits: sql`${users.credits} + ${p('credits')}` })
    .where(eq(users.id, p('userId')))
    .prepare();
  const insert = db
    .insert(r)
    .values({
      id: p('id'),
      kind: p('kind'),
      userId: p('userId'),
      status: 'created',
      request: p('request'),
      details: p('details'),
      webhookUrl: p('webhookUrl'),
      credits: p('credits'),
      createdAt: p('now'),
      modifiedAt: p('now'),
    })
    .prepare();
  // The two reads on the request path are plain better-sqlite3 statements in raw mode (each
  // row an array), made into the row object here, field by field in the schema's order (so
  // they cannot drift). drizzle's prepared select maps every row and parameter by hand, and
  // better-sqlite3's own row objects cost 1.3 µs more per read than the arrays (17 columns).
  const columns = Object.entries(getTableColumns(r));
  const names = columns.map(([field]) => field);
  const selected = columns.map(([, column]) => `"${column.name}"`).join(', ');
  const asRow = (values: unknown[] | undefined): ResourceRow | undefined => {
    if (!values) return undefined;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row as ResourceRow;
  };
  const owned = sqlite.prepare<[string, string, string], unknown[]>(`SELECT ${selected} FROM resources WHERE id = ? AND user_id = ? AND kind = ?`).raw(true);
  const byId = sqlite.prepare<[string], unknown[]>(`SELECT ${selected} FROM resources WHERE id = ?`).raw(true);
  const page = (after: boolean) =>
    db
      .select()
      .from(r)
      .where(
        and(
          eq(r.userId, p('userId')),
          eq(r.kind, p('kind')),
          // One statement for a page with and without a status filter: NULL means every state.
          sql`(${p('status')} IS NULL OR ${r.status} = ${p('status')})`,
          after ? olderThan(r.createdAt, r.id, { createdAt: p('at'), id: p('after') }) : undefined,
        ),
      )
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(p('limit'))
      .prepare();
  const inState = db.select().from(r).where(and(eq(r.kind, p('kind')), eq(r.status, p('status')), isNull(r.finishedAt))).orderBy(r.createdAt, r.id).limit(p('limit')).prepare();
  const firstPage = page(false);
  const nextPage = page(true);
  const start = db
    .update(r)
    .set({ status: 'started', startedAt: sql`COALESCE(${r.startedAt}, ${p('now')})`, modifiedAt: v('now') })
    .where(unfinished())
    .returning()
    .prepare();
  const setStatus = db.update(r).set({ status: v('status'), modifiedAt: v('now') }).where(unfinished()).prepare();
  // Progress never goes back: a render run again after a restart (or a retry) reports from its
  // first frame, and the record keeps the furthest fraction it reached (done/total, compared
  // without division) until the new run passes it.
  const progress = db
    .update(r)
    .set({ progressDone: v('done'), progressTotal: v('total'), modifiedAt: v('now') })
    .where(and(unfinished(), sql`(${r.progressDone} IS NULL OR ${r.progressTotal} IS NULL OR ${r.progressDone} * ${p('total')} <= ${p('done')} * ${r.progressTotal})`))
    .prepare();
  const setDetails = db.update(r).set({ details: v('details'), modifiedAt: v('now') }).where(unfinished()).prepare();
  const end = db
    .update(r)
    .set({
      status: v('status'),
      result: v('result'),
      error: v('error'),
      progressDone: null,
      progressTotal: null,
      modifiedAt: v('now'),
      finishedAt: v('now'),
    })
    .where(unfinished())
    .returning()
    .prepare();
  const advance = db
    .update(r)
    .set({ status: v('to'), details: v('details'), webhookUrl: v('webhookUrl'), modifiedAt: v('now') })
    .where(and(eq(r.id, p('id')), eq(r.status, p('from')), isNull(r.finishedAt)))
    .returning()
    .prepare();
  const amend = db
    .update(r)
    .set({ result: v('result'), modifiedAt: v('now') })
    .where(and(eq(r.id, p('id')), eq(r.userId, p('userId')), eq(r.kind, p('kind')), eq(r.status, 'done')))
    .returning()
    .prepare();
  const claim = db
    .update(r)
    .set({ claimedBy: v('by') })
    .where(and(eq(r.id, p('id')), eq(r.userId, p('userId')), eq(r.kind, p('kind')), eq(r.status, p('status')), isNull(r.claimedBy)))
    .prepare();
  const release = db.update(r).set({ claimedBy: null }).where(eq(r.claimedBy, p('by'))).prepare();
  const remove = db.delete(r).where(and(eq(r.id, p('id')), eq(r.userId, p('userId')), eq(r.kind, p('kind')))).returning().prepare();

  // IMMEDIATE: the write lock is taken at BEGIN, so a second process waits (busy_timeout) instead of failing mid-way.
  const createTx = sqlite.transaction((row: NewResource, job: JobToQueue | null): boolean => {
    if (charge.run({ userId: row.userId, credits: row.credits }).changes === 0) return false;
    insert.run({ ...row });
    if (job) enqueueJob({ kind: job.kind, resourceId: row.id, userId: row.userId, maxAttempts: job.maxAttempts });
    return true;
  });
  /** Thrown inside a transaction to roll it back. */
  const rollback = Symbol('rollback');
  const createClaimingTx = sqlite.transaction((row: NewResource, job: JobToQueue | null, c: Claim): 'created' | 'credits' | 'claimed' => {
    if (claim.run({ id: c.id, userId: row.userId, kind: c.kind, status: c.status, by: row.id }).changes === 0) return 'claimed';
    if (!createTx(row, job)) throw rollback;
    return 'created';
  });
  const advanceTx = sqlite.transaction((id: string, step: Advance): ResourceRow | undefined => {
    const row = advance.get({ id, from: step.from, to: step.to, details: step.details, webhookUrl: step.webhookUrl, now: step.now });
    if (row && step.job) enqueueJob({ kind: step.job.kind, resourceId: row.id, userId: row.userId, maxAttempts: step.job.maxAttempts });
    return row;
  });
  const finishTx = sqlite.transaction((id: string, e: Ending): ResourceRow | undefined => {
    const row = end.get({ id, status: e.status, result: e.result ?? null, error: e.error ?? null, now: e.now });
    if (!row) return undefined;
    // A resource that failed gives back what it claimed (its consent may be used again).
    if (e.refund) release.run({ by: row.id });
    if (e.refund && row.credits > 0) refund.run({ userId: row.userId, credits: row.credits });
    if (row.webhookUrl) {
      enqueueWebhook(db, { userId: row.userId, event: `${row.kind}.${row.status}`, resourceId: row.id, url: row.webhookUrl, now: e.now });
    }
    if (e.then) enqueueJob({ ...e.then, userId: row.userId });
    return row;
  });
  const removeTx = sqlite.transaction((userId: string, kind: string, id: string): ResourceRow | undefined => {
    const row = remove.get({ id, userId, kind });
    if (row && row.finishedAt === null && row.credits > 0) refund.run({ userId, credits: row.credits });
    if (row && (row.finishedAt === null || row.status !== 'done')) release.run({ by: row.id });
    return row;
  });

  return {
    create: async (row, job) => createTx.immediate(row, job),
    async createClaiming(row, job, c) {
      try {
        return createClaimingTx.immediate(row, job, c);
      } catch (err) {
        if (err === rollback) return 'credits';
        throw err;
      }
    },
    advance: async (id, step) => advanceTx.immediate(id, step),
    amendResult: async (userId, kind, id, result, now) => amend.get({ id, userId, kind, result, now }),
    get: async (userId, kind, id) => asRow(owned.get(id, userId, kind)),
    getById: async (id) => asRow(byId.get(id)),
    list: async (userId, kind, limit, cursor, status) =>
      cursor
        ? nextPage.all({ userId, kind, limit, status: status ?? null, at: cursor.createdAt, after: cursor.id })
        : firstPage.all({ userId, kind, limit, status: status ?? null }),
    listInState: async (kind, status, limit) => inState.all({ kind, status, limit }),
    start: async (id, now) => start.get({ id, now }),
    setStatus: async (id, status, now) => setStatus.run({ id, status, now }).changes > 0,
    progress: async (id, done, total, now) => void progress.run({ id, done, total, now }),
    setDetails: async (id, details, now) => void setDetails.run({ id, details, now }),
    finish: async (id, ending) => finishTx.immediate(id, ending),
    remove: async (userId, kind, id) => removeTx.immediate(userId, kind, id),
  };
}
