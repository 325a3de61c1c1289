import { randomBytes } from 'node:crypto';
import { getTableColumns } from 'drizzle-orm';
import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { enqueuePgWebhook } from '../db/pg/outbox.ts';
import { webhookAttempts, webhookMessages } from '../db/schema-pg/webhooks.ts';
import type { WebhookAttemptRow, WebhookMessageRow } from '../db/schema/webhooks.ts';
import { leaseSql, numbered, PG_SKIP_LOCKED } from '../jobs/lease-store.ts';
import { byCreation, toPage } from '../pagination.ts';
import { attemptWrites, createOutboxStore, deliveryViews, type OutboxStore } from './outbox-store.ts';
import { onDialect, type Database } from '../db/database.ts';
import type { IdFactory } from '../clock.ts';

/** Every column of a table, named as its row's fields (`user_id AS "userId"`). */
const columnsOf = (table: Parameters<typeof getTableColumns>[0]) =>
  Object.entries(getTableColumns(table))
    .map(([field, column]) => `"${column.name}" AS "${field}"`)
    .join(', ');
const MESSAGE = columnsOf(webhookMessages);
const ATTEMPT = columnsOf(webhookAttempts);

// The claim's sub-select locks the rows it picks and skips the ones another dispatcher is
// taking (src/jobs/lease-store.ts); a row another claimer took meanwhile is re-checked
// against `lease_until` once locked, and left out.
const lease = leaseSql({ table: 'webhook_messages', id: 'id', owner: 'lease_owner', until: 'lease_until', skipLocked: PG_SKIP_LOCKED });
const claim = statement(
  'mimic_outbox_claim',
  numbered(
    lease
      .claim({ claimable: `status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`, order: 'next_attempt_at, id' })
      .replace('RETURNING *', `RETURNING ${MESSAGE}`),
  ),
);
const insertAttempt = statement(
  'mimic_outbox_attempt',
  `INSERT INTO webhook_attempts (id, message_id, attempt, started_at, duration_ms, status_code, error, outcome) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
);
const step = `attempts = ?, last_status = ?, last_error = ?, status = ?`;
const delivered = statement('mimic_outbox_delivered', numbered(lease.finish({ set: `${step}, delivered_at = ?` })));
const retry = statement('mimic_outbox_retry', numbered(lease.finish({ set: `${step}, next_attempt_at = ?` })));
const ended = statement('mimic_outbox_ended', numbered(lease.finish({ set: step })));
const moves = { delivered, retry, ended };
const drop = statement('mimic_outbox_drop', numbered(lease.finish({ set: `status = 'failed', last_error = ?` })));
const ofResource = statement(
  'mimic_outbox_of_resource',
  `SELECT ${MESSAGE} FROM webhook_messages WHERE user_id = $1 AND resource_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
);
// One statement for every page: with and without a resource, with and without a cursor.
const page = statement(
  'mimic_outbox_page',
  `SELECT ${MESSAGE} FROM webhook_messages
   WHERE user_id = $1 AND ($2::text IS NULL OR resource_id = $2)
     AND ($3::bigint IS NULL OR created_at < $3 OR (created_at = $3 AND id < $4))
   ORDER BY created_at DESC, id DESC LIMIT $5`,
);
const attemptsOf = statement('mimic_outbox_attempts_of', `SELECT ${ATTEMPT} FROM webhook_attempts WHERE message_id = ANY($1::text[]) ORDER BY attempt`);

/**
 * The PostgreSQL OutboxStore: the same contract as the SQLite one (test/stores/contracts/).
 * A claim leases a batch with `FOR UPDATE SKIP LOCKED`, so dispatchers in several processes
 * never take the same message; every later write names the lease owner, so one that lost its
 * lease records its attempt but moves nothing. Lease times are the dispatcher's clock (as on
 * SQLite): every dispatcher of a deployment runs on synchronised machines, and a lease is
 * minutes long.
 */
export function createPgOutboxStore(h: PgDatabase, newId: IdFactory): OutboxStore {
  const { pool } = h;
  const present = async (rows: WebhookMessageRow[]) =>
    deliveryViews(rows, rows.length ? ((await attemptsOf(pool, [rows.map((r) => r.id)])).rows as WebhookAttemptRow[]) : []);

  return {
    enqueue: (input) => enqueuePgWebhook(pool, input, newId),
    async claim(now, leaseMs, limit) {
      const owner = `whd_${randomBytes(12).toString('base64url')}`;
      const { rows } = await claim(pool, [owner, now + leaseMs, now, now, limit]);
      return (rows as WebhookMessageRow[]).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1));
    },
    recordAttempt: (message, result, rec) =>
      withTx(pool, async (c) => {
        const { attempt, move } = attemptWrites(message, result, rec, newId('wha'));
        await insertAttempt(c, attempt);
        return ((await moves[move.statement](c, move.values)).rowCount ?? 0) > 0;
      }),
    async drop(message, reason) {
      await drop(pool, [reason, message.id, message.leaseOwner]);
    },
    listDeliveries: async (userId, resourceId, limit = 50) => present((await ofResource(pool, [userId, resourceId, limit])).rows as WebhookMessageRow[]),
    async listMessages(input) {
      const { rows } = await page(pool, [input.userId, input.resourceId ?? null, input.after?.createdAt ?? null, input.after?.id ?? null, input.limit + 1]);
      const cut = toPage(rows as WebhookMessageRow[], input.limit, byCreation);
      return { messages: await present(cut.items), ...(cut.next ? { next: cut.next } : {}) };
    },
  };
}

/** The OutboxStore on the database's dialect. */
export const outboxStoreOn = (database: Database, newId: IdFactory): OutboxStore =>
  onDialect(database, { sqlite: (h) => createOutboxStore(h, newId), postgres: (h) => createPgOutboxStore(h, newId) });
