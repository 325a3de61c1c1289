import { and, desc, eq, getTableColumns, gte, isNull, sql } from 'drizzle-orm';
import type { Store } from '../db/client.ts';
import { olderThan } from '../db/keyset.ts';
import { resources, users } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';

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

/** How a resource ends: its final status, and whether its credits come back. */
export interface Ending {
  status: string;
  result?: string | null;
  error?: string | null;
  refund: boolean;
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
  /** The user's resource of that kind, or undefined. */
  get(userId: string, kind: string, id: string): Promise<ResourceRow | undefined>;
  getById(id: string): Promise<ResourceRow | undefined>;
  /** Up to `limit` of the user's resources of a kind, newest first, after `cursor`. */
  list(userId: string, kind: string, limit: number, cursor: PageCursor | null): Promise<ResourceRow[]>;
  /** Marks an unfinished resource `started` (keeping the first start time); undefined when it is finished or gone. */
  start(id: string, now: number): Promise<ResourceRow | undefined>;
  /** Moves an unfinished resource to another unfinished state a kind declares (e.g. `validating`). */
  setStatus(id: string, status: string, now: number): Promise<boolean>;
  /** Records progress of an unfinished resource. */
  progress(id: string, done: number, total: number, now: number): Promise<void>;
  /** Replaces the kind's working fields of an unfinished resource. */
  setDetails(id: string, details: string, now: number): Promise<void>;
  /**
   * Ends an unfinished resource: sets the final status, refunds its credits when asked and
   * queues its webhook (event `<kind>.<status>`), in one transaction. Undefined when it had
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
  // The two reads on the request path are plain better-sqlite3 statements that name each
  // column as the row's field (from the schema, so they cannot drift): drizzle's prepared
  // select maps every row and parameter by hand, which cost more than the read itself.
  const fields = Object.entries(getTableColumns(r)).map(([field, column]) => `"${column.name}" AS "${field}"`).join(', ');
  const owned = sqlite.prepare<[string, string, string], ResourceRow>(`SELECT ${fields} FROM resources WHERE id = ? AND user_id = ? AND kind = ?`);
  const byId = sqlite.prepare<[string], ResourceRow>(`SELECT ${fields} FROM resources WHERE id = ?`);
  const page = (after: boolean) =>
    db
      .select()
      .from(r)
      .where(and(eq(r.userId, p('userId')), eq(r.kind, p('kind')), after ? olderThan(r.createdAt, r.id, { createdAt: p('at'), id: p('after') }) : undefined))
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(p('limit'))
      .prepare();
  const firstPage = page(false);
  const nextPage = page(true);
  const start = db
    .update(r)
    .set({ status: 'started', startedAt: sql`COALESCE(${r.startedAt}, ${p('now')})`, modifiedAt: v('now') })
    .where(unfinished())
    .returning()
    .prepare();
  const setStatus = db.update(r).set({ status: v('status'), modifiedAt: v('now') }).where(unfinished()).prepare();
  const progress = db.update(r).set({ progressDone: v('done'), progressTotal: v('total'), modifiedAt: v('now') }).where(unfinished()).prepare();
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
  const remove = db.delete(r).where(and(eq(r.id, p('id')), eq(r.userId, p('userId')), eq(r.kind, p('kind')))).returning().prepare();

  // IMMEDIATE: the write lock is taken at BEGIN, so a second process waits (busy_timeout) instead of failing mid-way.
  const createTx = sqlite.transaction((row: NewResource, job: JobToQueue | null): boolean => {
    if (charge.run({ userId: row.userId, credits: row.credits }).changes === 0) return false;
    insert.run({ ...row });
    if (job) enqueueJob({ kind: job.kind, resourceId: row.id, userId: row.userId, maxAttempts: job.maxAttempts });
    return true;
  });
  const finishTx = sqlite.transaction((id: string, e: Ending): ResourceRow | undefined => {
    const row = end.get({ id, status: e.status, result: e.result ?? null, error: e.error ?? null, now: e.now });
    if (!row) return undefined;
    if (e.refund && row.credits > 0) refund.run({ userId: row.userId, credits: row.credits });
    if (row.webhookUrl) {
      enqueueWebhook(db, { userId: row.userId, event: `${row.kind}.${row.status}`, resourceId: row.id, url: row.webhookUrl, now: e.now });
    }
    return row;
  });
  const removeTx = sqlite.transaction((userId: string, kind: string, id: string): ResourceRow | undefined => {
    const row = remove.get({ id, userId, kind });
    if (row && row.finishedAt === null && row.credits > 0) refund.run({ userId, credits: row.credits });
    return row;
  });

  return {
    create: async (row, job) => createTx.immediate(row, job),
    get: async (userId, kind, id) => owned.get(id, userId, kind),
    getById: async (id) => byId.get(id),
    list: async (userId, kind, limit, cursor) =>
      cursor ? nextPage.all({ userId, kind, limit, at: cursor.createdAt, after: cursor.id }) : firstPage.all({ userId, kind, limit }),
    start: async (id, now) => start.get({ id, now }),
    setStatus: async (id, status, now) => setStatus.run({ id, status, now }).changes > 0,
    progress: async (id, done, total, now) => void progress.run({ id, done, total, now }),
    setDetails: async (id, details, now) => void setDetails.run({ id, details, now }),
    finish: async (id, ending) => finishTx.immediate(id, ending),
    remove: async (userId, kind, id) => removeTx.immediate(userId, kind, id),
  };
}
