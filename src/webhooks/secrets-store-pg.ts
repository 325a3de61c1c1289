import type { PgDatabase } from '../db/pg/database.ts';
import { createSqliteWebhookSecretStore, type WebhookSecretStore } from './secrets-store.ts';
import { onDialect, type Database } from '../db/database.ts';

/** The PostgreSQL WebhookSecretStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgWebhookSecretStore(_h: PgDatabase): WebhookSecretStore {
  throw new Error('WebhookSecretStore on PostgreSQL is not written yet');
}

/** The WebhookSecretStore on the database's dialect. */
export const webhookSecretStoreOnDatabase = (database: Database): WebhookSecretStore => onDialect(database, { sqlite: (h) => createSqliteWebhookSecretStore(h.db), postgres: createPgWebhookSecretStore });
