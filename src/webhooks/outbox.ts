import { and, asc, desc, eq, inArray, isNull, lte, or } from 'drizzle-orm';
import { randomId, type IdFactory } from '../clock.ts';
import { webhookAttempts, webhookMessages, type WebhookAttemptRow, type WebhookMessageRow } from '../db/schema/webhooks.ts';
import type { WebhookDb } from './db.ts';
import { olderThan } from '../db/keyset.ts';
import { byCreation, toPage } from '../pagination.ts';

/**
 * The durable outbox. Messages live in SQLite, so they survive restarts and any process
 * with the file can deliver them; a claim is an atomic UPDATE that sets a lease, so two
 * dispatchers never send the same attempt. Every function here is synchronous and can run
 * inside a caller's better-sqlite3 transaction.
 */

export interface EnqueueWebhookInput {
  userId: string;
  event: string;
  resourceId: string;
  url: string;
  now: number;
  /** Defaults to a fresh `msg_...`. */
  id?: string;
}

/** Queues a message for delivery as soon as a dispatcher polls; returns its `webhook-id`. */
export function enqueueWebhook(db: WebhookDb, input: EnqueueWebhookInput, newId: IdFactory = randomId): string {
  const id = input.id ?? newId('msg');
  db.insert(webhookMessages)
    .values({
      id,
      userId: input.userId,
      event: input.event,
      resourceId: input.resourceId,
      url: input.url,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: input.now,
      createdAt: input.now,
    })
    .run();
  return id;
}

/** Claims up to `limit` due messages until `now + leaseMs`; the returned rows carry the lease. */
export function claimDueMessages(db: WebhookDb, now: number, leaseMs: number, limit: number): WebhookMessageRow[] {
  const m = webhookMessages;
  const claimable = and(eq(m.status, 'pending'), lte(m.nextAttemptAt, now), or(isNull(m.leaseUntil), lte(m.leaseUntil, now)));
  const due = db.select({ id: m.id }).from(m).where(claimable).orderBy(asc(m.nextAttemptAt)).limit(limit);
  return db
    .update(m)
    .set({ leaseUntil: now + leaseMs })
    .where(and(inArray(m.id, due), claimable))
    .returning()
    .all() as WebhookMessageRow[];
}

export type AttemptResult =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'retry'; statusCode: number | null; error: string; nextAttemptAt: number }
  | { outcome: 'failed' | 'disabled'; statusCode: number | null; error: string };

export interface AttemptRecord {
  startedAt: number;
  durationMs: number;
  /** When the attempt ended, ms. */
  now: number;
}

/**
 * Records one attempt and moves the message on, in one transaction. The update only applies
 * while we still hold the claim (our lease value): a dispatcher that lost its lease to
 * another records its attempt but leaves the message to the new owner. Returns whether
 * the message was updated.
 */
export function recordAttempt(db: WebhookDb, message: WebhookMessageRow, result: AttemptResult, rec: AttemptRecord, newId: IdFactory = randomId): boolean {
  const attempt = message.attempts + 1;
  return db.transaction((tx) => {
    tx.insert(webhookAttempts)
      .values({
        id: newId('wha'),
        messageId: message.id,
        attempt,
        startedAt: rec.startedAt,
        durationMs: Math.max(0, Math.round(rec.durationMs)),
        statusCode: result.statusCode,
        error: result.outcome === 'delivered' ? null : result.error,
        outcome: result.outcome === 'delivered' ? 'success' : 'failure',
      })
      .run();
    const common = { attempts: attempt, leaseUntil: null, lastStatus: result.statusCode };
    const set =
      result.outcome === 'delivered'
        ? { ...common, status: 'delivered' as const, lastError: null, deliveredAt: rec.now }
        : result.outcome === 'retry'
          ? { ...common, status: 'pending' as const, lastError: result.error, nextAttemptAt: result.nextAttemptAt }
          : { ...common, status: result.outcome, lastError: result.error };
    const leaseMatch = message.leaseUntil === null ? isNull(webhookMessages.leaseUntil) : eq(webhookMessages.leaseUntil, message.leaseUntil);
    const updated = tx.update(webhookMessages).set(set).where(and(eq(webhookMessages.id, message.id), leaseMatch)).run() as { changes: number };
    return updated.changes > 0;
  });
}

/** Ends a message without an attempt (its body can no longer be built). */
export function dropMessage(db: WebhookDb, message: WebhookMessageRow, reason: string): void {
  db.update(webhookMessages)
    .set({ status: 'failed', leaseUntil: null, lastError: reason })
    .where(and(eq(webhookMessages.id, message.id), message.leaseUntil === null ? isNull(webhookMessages.leaseUntil) : eq(webhookMessages.leaseUntil, message.leaseUntil)))
    .run();
}

// ---------------------------------------------------------------- owner views

export interface DeliveryAttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  outcome: 'success' | 'failure';
  error: string | null;
}

export interface DeliveryView {
  id: string;
  event: string;
  resource_id: string;
  url: string;
  status: WebhookMessageRow['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempts_log: DeliveryAttemptView[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function present(db: WebhookDb, rows: WebhookMessageRow[]): DeliveryView[] {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? (db.select().from(webhookAttempts).where(inArray(webhookAttempts.messageId, ids)).orderBy(asc(webhookAttempts.attempt)).all() as WebhookAttemptRow[])
    : [];
  const byMessage = new Map<string, DeliveryAttemptView[]>();
  for (const a of attempts) {
    const list = byMessage.get(a.messageId) ?? [];
    list.push({ attempt: a.attempt, started_at: iso(a.startedAt)!, duration_ms: a.durationMs, status_code: a.statusCode, outcome: a.outcome, error: a.error });
    byMessage.set(a.messageId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    event: r.event,
    resource_id: r.resourceId,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: iso(r.createdAt)!,
    delivered_at: iso(r.deliveredAt),
    attempts_log: byMessage.get(r.id) ?? [],
  }));
}

/** The deliveries of one resource of one user, newest first (for embedding in the resource). */
export function listDeliveries(db: WebhookDb, userId: string, resourceId: string, limit = 50): DeliveryView[] {
  const m = webhookMessages;
  const rows = db
    .select()
    .from(m)
    .where(and(eq(m.userId, userId), eq(m.resourceId, resourceId)))
    .orderBy(desc(m.createdAt), desc(m.id))
    .limit(limit)
    .all() as WebhookMessageRow[];
  return present(db, rows);
}

export interface ListMessagesInput {
  userId: string;
  resourceId?: string;
  limit: number;
  /** Continuation from a previous page. */
  after?: { createdAt: number; id: string };
}

/** One page of a user's messages, newest first; `next` continues when there may be more. */
export function listMessages(db: WebhookDb, input: ListMessagesInput): { messages: DeliveryView[]; next?: { createdAt: number; id: string } } {
  const m = webhookMessages;
  const conditions = [eq(m.userId, input.userId)];
  if (input.resourceId) conditions.push(eq(m.resourceId, input.resourceId));
  const after = olderThan(m.createdAt, m.id, input.after);
  if (after) conditions.push(after);
  const rows = db
    .select()
    .from(m)
    .where(and(...conditions))
    .orderBy(desc(m.createdAt), desc(m.id))
    .limit(input.limit + 1)
    .all() as WebhookMessageRow[];
  const page = toPage(rows, input.limit, byCreation);
  return { messages: present(db, page.items), ...(page.next ? { next: page.next } : {}) };
}
