import { Hono } from 'hono';
import type { Clock } from '../../clock.ts';
import { parsePage, pageToken } from '../../pagination.ts';
import type { AppEnv } from '../env.ts';
import type { WebhookDb } from '../../webhooks/db.ts';
import { listMessages } from '../../webhooks/outbox.ts';
import { createWebhookSecrets, type WebhookSecrets } from '../../webhooks/secrets.ts';
import { createSqliteWebhookSecretStore } from '../../webhooks/secrets-store.ts';

export interface WebhookRouteDeps {
  store: { db: WebhookDb };
  clock: Clock;
  /** Either the secrets service or the master key to build one. */
  secrets?: WebhookSecrets;
  masterKey?: Buffer;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The owner's view of webhooks (mounted under auth): the signing secret to verify our
 * deliveries with, its rotation, and the delivery log. Only the caller's own rows.
 */
export function webhookRoutes(deps: WebhookRouteDeps): Hono<AppEnv> {
  const { db } = deps.store;
  const secrets = deps.secrets ?? (deps.masterKey ? createWebhookSecrets({ store: createSqliteWebhookSecretStore(db), clock: deps.clock, masterKey: deps.masterKey }) : undefined);
  if (!secrets) throw new Error('webhookRoutes needs secrets or masterKey');
  const app = new Hono<AppEnv>();

  app.get('/webhooks/secret', async (c) => {
    const s = await secrets.getOrCreateSigningSecret(c.var.user.id);
    return c.json({ secret: s.secret, created_at: iso(s.createdAt), previous_expires_at: iso(s.previousExpiresAt) });
  });

  app.post('/webhooks/secret/rotate', async (c) => {
    const s = await secrets.rotateSigningSecret(c.var.user.id);
    return c.json({ secret: s.secret, created_at: iso(s.createdAt), previous_expires_at: iso(s.previousExpiresAt) });
  });

  app.get('/webhooks/messages', (c) => {
    const { limit, cursor } = parsePage(c.req.query());
    const resourceId = c.req.query('resource_id');
    const page = listMessages(db, {
      userId: c.var.user.id,
      limit,
      ...(resourceId ? { resourceId } : {}),
      ...(cursor ? { after: cursor } : {}),
    });
    return c.json({ messages: page.messages, ...(page.next ? { token: pageToken(page.next) } : {}) });
  });

  return app;
}
