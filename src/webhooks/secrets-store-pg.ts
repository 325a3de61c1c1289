import type { PgDatabase } from '../db/pg/database.ts';
import { statement, withTx } from '../db/pg/tx.ts';
import { createSqliteWebhookSecretStore, type WebhookSecretRow, type WebhookSecretStore } from './secrets-store.ts';
import { onDialect, type Database } from '../db/database.ts';

const COLUMNS = `user_id AS "userId", current, previous, previous_expires_at AS "previousExpiresAt", created_at AS "createdAt", rotated_at AS "rotatedAt"`;

const read = statement('mimic_webhook_secret_get', `SELECT ${COLUMNS} FROM webhook_secrets WHERE user_id = $1`);
// Of two processes inserting a user's first secret, the second waits for the first's commit and then inserts nothing.
const insert = statement('mimic_webhook_secret_insert', 'INSERT INTO webhook_secrets (user_id, current, created_at) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING');
const rotate = statement(
  'mimic_webhook_secret_rotate',
  `UPDATE webhook_secrets SET previous = current, current = $2, previous_expires_at = $4, rotated_at = $3 WHERE user_id = $1 RETURNING ${COLUMNS}`,
);

/** The PostgreSQL WebhookSecretStore: the same contract as the SQLite one (test/stores/contracts/). */
export function createPgWebhookSecretStore(h: PgDatabase): WebhookSecretStore {
  const { pool } = h;
  return {
    get: async (userId) => (await read(pool, [userId])).rows[0] as WebhookSecretRow | undefined,
    async createIfAbsent(userId, sealed, now) {
      await insert(pool, [userId, sealed, now]);
      // A new statement: it sees the row that is there, ours or the one that won.
      return (await read(pool, [userId])).rows[0] as WebhookSecretRow;
    },
    rotate: (userId, seed, fresh, now, previousExpiresAt) =>
      withTx(pool, async (c) => {
        await insert(c, [userId, seed, now]);
        // A rotation racing another waits for its row lock and then rotates the secret it left.
        return (await rotate(c, [userId, fresh, now, previousExpiresAt])).rows[0] as WebhookSecretRow;
      }),
  };
}

/** The WebhookSecretStore on the database's dialect. */
export const webhookSecretStoreOnDatabase = (database: Database): WebhookSecretStore => onDialect(database, { sqlite: (h) => createSqliteWebhookSecretStore(h.db), postgres: createPgWebhookSecretStore });
