import { eq } from 'drizzle-orm';
import type { Clock } from '../clock.ts';
import { deriveKey, open, seal } from '../keys.ts';
import { webhookSecrets } from '../db/schema/webhooks.ts';
import type { WebhookDb } from './db.ts';
import { generateSigningSecret } from './signing.ts';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface SigningSecretView {
  secret: string;
  /** When the current secret was made (creation or last rotation), ms. */
  createdAt: number;
  /** Until when the previous secret still signs, ms; null when there is none. */
  previousExpiresAt: number | null;
}

export interface WebhookSecrets {
  getOrCreateSigningSecret(userId: string): SigningSecretView;
  rotateSigningSecret(userId: string): SigningSecretView;
  /** The secrets that sign a message now: the current one first, then an unexpired previous one. */
  activeSecrets(userId: string): string[];
}

export interface WebhookSecretsDeps {
  db: WebhookDb;
  clock: Clock;
  /** The master key; the sealing key is deriveKey(master, 'webhook-secrets'). */
  masterKey: Buffer;
}

const aad = (userId: string) => `webhook-secret:${userId}`;

/**
 * Per-user signing secrets, sealed (AES-GCM) with associated data binding each ciphertext
 * to its user: a sealed secret copied into another user's row does not open.
 */
export function createWebhookSecrets(deps: WebhookSecretsDeps): WebhookSecrets {
  const key = deriveKey(deps.masterKey, 'webhook-secrets');
  const { db } = deps;

  const read = (userId: string) => db.select().from(webhookSecrets).where(eq(webhookSecrets.userId, userId)).get() as typeof webhookSecrets.$inferSelect | undefined;

  const view = (row: typeof webhookSecrets.$inferSelect, now: number): SigningSecretView => {
    const previousLive = row.previous !== null && row.previousExpiresAt !== null && row.previousExpiresAt > now;
    return {
      secret: open(key, row.current, aad(row.userId)),
      createdAt: row.rotatedAt ?? row.createdAt,
      previousExpiresAt: previousLive ? row.previousExpiresAt : null,
    };
  };

  function getOrCreate(userId: string): typeof webhookSecrets.$inferSelect {
    const existing = read(userId);
    if (existing) return existing;
    const now = deps.clock.now();
    // Two processes may race here: the loser's insert is ignored and both read the winner's secret.
    db.insert(webhookSecrets)
      .values({ userId, current: seal(key, generateSigningSecret(), aad(userId)), createdAt: now })
      .onConflictDoNothing()
      .run();
    return read(userId)!;
  }

  return {
    getOrCreateSigningSecret: (userId) => view(getOrCreate(userId), deps.clock.now()),

    rotateSigningSecret(userId) {
      return db.transaction((tx) => {
        const row = getOrCreate(userId);
        const now = deps.clock.now();
        tx.update(webhookSecrets)
          .set({
            current: seal(key, generateSigningSecret(), aad(userId)),
            previous: row.current,
            previousExpiresAt: now + ROTATION_OVERLAP_MS,
            rotatedAt: now,
          })
          .where(eq(webhookSecrets.userId, userId))
          .run();
        return view(read(userId)!, now);
      });
    },

    activeSecrets(userId) {
      const row = getOrCreate(userId);
      const now = deps.clock.now();
      const secrets = [open(key, row.current, aad(userId))];
      if (row.previous && row.previousExpiresAt !== null && row.previousExpiresAt > now) {
        secrets.push(open(key, row.previous, aad(userId)));
      }
      return secrets;
    },
  };
}
