import type { Clock } from '../clock.ts';
import { deriveKey, open, seal } from '../keys.ts';
import type { WebhookSecretRow, WebhookSecretStore } from './secrets-store.ts';
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
  getOrCreateSigningSecret(userId: string): Promise<SigningSecretView>;
  rotateSigningSecret(userId: string): Promise<SigningSecretView>;
  /** The secrets that sign a message now: the current one first, then an unexpired previous one. */
  activeSecrets(userId: string): Promise<string[]>;
}

export interface WebhookSecretsDeps {
  store: WebhookSecretStore;
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
  const { store } = deps;
  const sealNew = (userId: string) => seal(key, generateSigningSecret(), aad(userId));

  const view = (row: WebhookSecretRow, now: number): SigningSecretView => {
    const previousLive = row.previous !== null && row.previousExpiresAt !== null && row.previousExpiresAt > now;
    return {
      secret: open(key, row.current, aad(row.userId)),
      createdAt: row.rotatedAt ?? row.createdAt,
      previousExpiresAt: previousLive ? row.previousExpiresAt : null,
    };
  };

  // Two processes may race to create: the loser's insert is ignored and both read the winner's secret.
  const getOrCreate = async (userId: string): Promise<WebhookSecretRow> =>
    (await store.get(userId)) ?? store.createIfAbsent(userId, sealNew(userId), deps.clock.now());

  return {
    getOrCreateSigningSecret: async (userId) => view(await getOrCreate(userId), deps.clock.now()),

    async rotateSigningSecret(userId) {
      const now = deps.clock.now();
      return view(await store.rotate(userId, sealNew(userId), sealNew(userId), now, now + ROTATION_OVERLAP_MS), now);
    },

    async activeSecrets(userId) {
      const row = await getOrCreate(userId);
      const now = deps.clock.now();
      const secrets = [open(key, row.current, aad(userId))];
      if (row.previous && row.previousExpiresAt !== null && row.previousExpiresAt > now) {
        secrets.push(open(key, row.previous, aad(userId)));
      }
      return secrets;
    },
  };
}
