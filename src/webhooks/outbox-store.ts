import type Database from 'better-sqlite3';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { randomId, type IdFactory } from '../clock.ts';
import { webhookAttempts, webhookMessages, type WebhookAttemptRow, type WebhookMessageRow } from '../db/schema/webhooks.ts';
import { olderThan } from '../db/keyset.ts';
import { leaseSql, SQLITE_SKIP_LOCKED } from '../jobs/lease-store.ts';
import { byCreation, toPage } from '../pagination.ts';
import { enqueueWebhook, type EnqueueWebhookInput, type WebhookDb } from '../db/outbox.ts';

// The writer that queues a message (inside the transaction of the store that ends a resource) is db/outbox.ts's.
export { enqueueWebhook, type EnqueueWebhookInput, type WebhookDb };

/**
 * The durable outbox. Messages live in the database, so they survive restarts and any
 * process with the file can deliver them. A claim is one statement that leases a batch to
 * one dispatcher (src/jobs/lease-store.ts), and every later write names that lease owner,
 * so two dispatchers never send the same attempt, and one that lost its lease changes nothing.
 */

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

/** Messages as the owner sees them, each with its attempts (`attempts`: theirs, in attempt order); both dialects' stores answer these. */
export function deliveryViews(rows: WebhookMessageRow[], attempts: WebhookAttemptRow[]): DeliveryView[] {
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

function present(db: WebhookDb, rows: WebhookMessageRow[]): DeliveryView[] {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? (db.select().from(webhookAttempts).where(inArray(webhookAttempts.messageId, ids)).orderBy(asc(webhookAttempts.attempt)).all() as WebhookAttemptRow[])
    : [];
  return deliveryViews(rows, attempts);
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

// ---------------------------------------------------------------- the store

export interface OutboxStore {
  enqueue(input: EnqueueWebhookInput): Promise<string>;
  /** Leases up to `limit` due messages to one new owner until `now + leaseMs`; the rows carry the owner. */
  claim(now: number, leaseMs: number, limit: number): Promise<WebhookMessageRow[]>;
  /**
   * Records one attempt and moves the message on, in one transaction. The message changes only
   * while the claim is still ours: a dispatcher that lost its lease records its attempt but
   * leaves the message to the new owner. Returns whether the message was updated.
   */
  recordAttempt(message: WebhookMessageRow, result: AttemptResult, rec: AttemptRecord): Promise<boolean>;
  /** Ends a message without an attempt (its body can no longer be built), while the claim is ours. */
  drop(message: WebhookMessageRow, reason: string): Promise<void>;
  /** The deliveries of one resource of one user, newest first (for embedding in the resource). */
  listDeliveries(userId: string, resourceId: string, limit?: number): Promise<DeliveryView[]>;
  /** One page of a user's messages, newest first; `next` continues when there may be more. */
  listMessages(input: ListMessagesInput): Promise<{ messages: DeliveryView[]; next?: { createdAt: number; id: string } }>;
}

/**
 * What recording an attempt writes, on either dialect: the attempt row (in the column order
 * id, message_id, attempt, started_at, duration_ms, status_code, error, outcome), and the move
 * of the message, which of the three lease-finishing statements (their `set` is
 * `attempts, last_status, last_error, status` and then `delivered_at`, `next_attempt_at` or
 * nothing) with its parameters, the message id and lease owner last.
 */
export function attemptWrites(message: WebhookMessageRow, result: AttemptResult, rec: AttemptRecord, attemptId: string) {
  const attempt = message.attempts + 1;
  const error = result.outcome === 'delivered' ? null : result.error;
  const common = [attempt, result.statusCode, error];
  const key = [message.id, message.leaseOwner];
  return {
    attempt: [attemptId, message.id, attempt, rec.startedAt, Math.max(0, Math.round(rec.durationMs)), result.statusCode, error, result.outcome === 'delivered' ? 'success' : 'failure'],
    move:
      result.outcome === 'delivered'
        ? { statement: 'delivered' as const, values: [...common, 'delivered', rec.now, ...key] }
        : result.outcome === 'retry'
          ? { statement: 'retry' as const, values: [...common, 'pending', result.nextAttemptAt, ...key] }
          : { statement: 'ended' as const, values: [...common, result.outcome, ...key] },
  };
}

const lease = leaseSql({ table: 'webhook_messages', id: 'id', owner: 'lease_owner', until: 'lease_until', skipLocked: SQLITE_SKIP_LOCKED });

export interface OutboxHandle {
  sqlite: Database.Database;
  db: WebhookDb;
}

export function createOutboxStore(handle: OutboxHandle, newId: IdFactory = randomId): OutboxStore {
  const { sqlite, db } = handle;
  const claim = sqlite.prepare<unknown[], Record<string, unknown>>(
    lease.claim({
      claimable: `status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
      order: 'next_attempt_at, id',
    }),
  );
  const insertAttempt = sqlite.prepare(
    `INSERT INTO webhook_attempts (id, message_id, attempt, started_at, duration_ms, status_code, error, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const step = `attempts = ?, last_status = ?, last_error = ?, status = ?`;
  const delivered = sqlite.prepare(lease.finish({ set: `${step}, delivered_at = ?` }));
  const retry = sqlite.prepare(lease.finish({ set: `${step}, next_attempt_at = ?` }));
  const ended = sqlite.prepare(lease.finish({ set: step }));
  const drop = sqlite.prepare(lease.finish({ set: `status = 'failed', last_error = ?` }));

  const moves = { delivered, retry, ended };
  const recordTx = sqlite.transaction((message: WebhookMessageRow, result: AttemptResult, rec: AttemptRecord): boolean => {
    const { attempt, move } = attemptWrites(message, result, rec, newId('wha'));
    insertAttempt.run(...attempt);
    return moves[move.statement].run(...move.values).changes > 0;
  });

  const toRow = (r: Record<string, unknown>): WebhookMessageRow => ({
    id: r.id as string,
    userId: r.user_id as string,
    event: r.event as string,
    resourceId: r.resource_id as string,
    url: r.url as string,
    status: r.status as WebhookMessageRow['status'],
    attempts: r.attempts as number,
    nextAttemptAt: r.next_attempt_at as number,
    leaseOwner: r.lease_owner as string | null,
    leaseUntil: r.lease_until as number | null,
    lastStatus: r.last_status as number | null,
    lastError: r.last_error as string | null,
    createdAt: r.created_at as number,
    deliveredAt: r.delivered_at as number | null,
  });

  return {
    enqueue: async (input) => enqueueWebhook(db, input, newId),
    async claim(now, leaseMs, limit) {
      const owner = `whd_${randomBytes(12).toString('base64url')}`;
      return claim
        .all(owner, now + leaseMs, now, now, limit)
        .map(toRow)
        .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1));
    },
    recordAttempt: async (message, result, rec) => recordTx(message, result, rec),
    async drop(message, reason) {
      drop.run(reason, message.id, message.leaseOwner);
    },
    listDeliveries: async (userId, resourceId, limit) => listDeliveries(db, userId, resourceId, limit),
    listMessages: async (input) => listMessages(db, input),
  };
}
