import { pgTable, text, bigint, index } from 'drizzle-orm/pg-core';
import { users } from './core.ts';

/** Times are integer milliseconds since the epoch. */

/** One Standard Webhooks signing secret per user, sealed under deriveKey(master, 'webhook-secrets'). */
export const webhookSecrets = pgTable('webhook_secrets', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** seal(key, 'whsec_...', aad = `webhook-secret:${userId}`) */
  current: text('current').notNull(),
  /** The secret replaced by the last rotation; it keeps signing until previous_expires_at. */
  previous: text('previous'),
  previousExpiresAt: bigint('previous_expires_at', { mode: 'number' }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  rotatedAt: bigint('rotated_at', { mode: 'number' }),
});

/** The outbox: one row per event to deliver; its id is the stable `webhook-id`. */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** e.g. 'animation.done' */
    event: text('event').notNull(),
    resourceId: text('resource_id').notNull(),
    url: text('url').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed', 'disabled'] }).notNull(),
    /** Attempts made so far. */
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    /** The dispatcher that holds the claim (src/jobs/lease-store.ts); null when unclaimed. */
    leaseOwner: text('lease_owner'),
    /** A dispatcher owns the message until then (claim lease); null when unclaimed. */
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    lastStatus: bigint('last_status', { mode: 'number' }),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    deliveredAt: bigint('delivered_at', { mode: 'number' }),
  },
  (t) => [
    index('webhook_messages_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_messages_user_idx').on(t.userId, t.createdAt, t.id),
    index('webhook_messages_resource_idx').on(t.resourceId),
  ],
);

/** One row per delivery attempt. `error` never holds a credential or a full URL. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    messageId: text('message_id')
      .notNull()
      .references(() => webhookMessages.id, { onDelete: 'cascade' }),
    attempt: bigint('attempt', { mode: 'number' }).notNull(),
    startedAt: bigint('started_at', { mode: 'number' }).notNull(),
    durationMs: bigint('duration_ms', { mode: 'number' }).notNull(),
    statusCode: bigint('status_code', { mode: 'number' }),
    error: text('error'),
    outcome: text('outcome', { enum: ['success', 'failure'] }).notNull(),
  },
  (t) => [index('webhook_attempts_message_idx').on(t.messageId, t.attempt)],
);

export type WebhookMessageRow = typeof webhookMessages.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
