import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { randomId, type IdFactory } from '../clock.ts';
import { webhookMessages } from './schema/webhooks.ts';

/**
 * The outbox's writer: a message queued for delivery, written in the caller's transaction.
 * Below the capabilities so that the kit's resource store, which ends a resource, can queue
 * its final-state message in the same transaction; the webhooks capability delivers the
 * messages (its dispatcher) and shows them (its delivery log, src/webhooks/outbox-store.ts).
 */

/**
 * Any synchronous (better-sqlite3) drizzle database whose schema includes the webhook
 * tables: the app's `Db`, or a test database holding only these tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WebhookDb = BaseSQLiteDatabase<'sync', any, any>;

export interface EnqueueWebhookInput {
  userId: string;
  event: string;
  resourceId: string;
  url: string;
  now: number;
  /** Defaults to a fresh `msg_...`. */
  id?: string;
}

/**
 * Queues a message for delivery as soon as a dispatcher polls; returns its `webhook-id`.
 * Synchronous on purpose: a store that ends a resource calls it inside its own transaction,
 * so the message commits (or rolls back) with the final state.
 */
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
