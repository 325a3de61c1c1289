import { eq, sql } from 'drizzle-orm';
import { webhookSecrets } from '../db/schema/webhooks.ts';
import type { WebhookDb } from './db.ts';

export type WebhookSecretRow = typeof webhookSecrets.$inferSelect;

/** Per-user signing secrets, stored sealed; this store never sees one in clear. */
export interface WebhookSecretStore {
  get(userId: string): Promise<WebhookSecretRow | undefined>;
  /** Inserts `sealed` as the user's secret unless one exists (two processes may race); answers the row that is there. */
  createIfAbsent(userId: string, sealed: string, now: number): Promise<WebhookSecretRow>;
  /**
   * In one transaction: `seed` becomes the secret if the user had none, then `fresh` replaces
   * the current one, which keeps signing until `previousExpiresAt`.
   */
  rotate(userId: string, seed: string, fresh: string, now: number, previousExpiresAt: number): Promise<WebhookSecretRow>;
}

export function createSqliteWebhookSecretStore(db: WebhookDb): WebhookSecretStore {
  const read = db.select().from(webhookSecrets).where(eq(webhookSecrets.userId, sql.placeholder('userId'))).prepare();
  const insert = db
    .insert(webhookSecrets)
    .values({ userId: sql.placeholder('userId'), current: sql.placeholder('current'), createdAt: sql.placeholder('now') })
    .onConflictDoNothing()
    .prepare();
  const rotate = db
    .update(webhookSecrets)
    .set({
      previous: sql`${webhookSecrets.current}`,
      current: sql`${sql.placeholder('fresh')}`,
      previousExpiresAt: sql`${sql.placeholder('previousExpiresAt')}`,
      rotatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(eq(webhookSecrets.userId, sql.placeholder('userId')))
    .returning()
    .prepare();

  const createIfAbsent = (userId: string, sealed: string, now: number): WebhookSecretRow => {
    insert.run({ userId, current: sealed, now });
    return read.get({ userId }) as WebhookSecretRow;
  };

  return {
    get: async (userId) => read.get({ userId }) as WebhookSecretRow | undefined,
    createIfAbsent: async (userId, sealed, now) => createIfAbsent(userId, sealed, now),
    rotate: async (userId, seed, fresh, now, previousExpiresAt) =>
      db.transaction(() => {
        insert.run({ userId, current: seed, now });
        return rotate.get({ userId, fresh, now, previousExpiresAt }) as WebhookSecretRow;
      }),
  };
}

/** The store on a database handle: the webhooks module builds it from the platform's. */
export const webhookSecretStoreOn = (handle: { db: WebhookDb }): WebhookSecretStore => createSqliteWebhookSecretStore(handle.db);
