import type pg from 'pg';
import { randomId, type IdFactory } from '../../clock.ts';
import type { EnqueueWebhookInput } from '../outbox.ts';
import { statement } from './tx.ts';

const insert = statement(
  'mimic_outbox_enqueue',
  `INSERT INTO webhook_messages (id, user_id, event, resource_id, url, status, attempts, next_attempt_at, created_at)
   VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)`,
);

/**
 * The outbox's writer on PostgreSQL (../outbox.ts is SQLite's): queues a message for delivery
 * and answers its `webhook-id`. Given the client of a transaction (src/db/pg/tx.ts), the
 * message commits or rolls back with the caller's other writes, as a resource's final state
 * and its announcement must.
 */
export async function enqueuePgWebhook(on: pg.Pool | pg.PoolClient, input: EnqueueWebhookInput, newId: IdFactory = randomId): Promise<string> {
  const id = input.id ?? newId('msg');
  await insert(on, [id, input.userId, input.event, input.resourceId, input.url, input.now]);
  return id;
}
