import type { Route } from '../platform/module.ts';
import type { Clock } from '../clock.ts';
import { pageParams } from '../http/params.ts';
import { parsePage, pageToken } from '../pagination.ts';
import type { WebhookDb } from './db.ts';
import { listMessages } from './outbox.ts';
import { createWebhookSecrets, type WebhookSecrets } from './secrets.ts';
import { createSqliteWebhookSecretStore } from './secrets-store.ts';

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
export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  const { db } = deps.store;
  const secrets = deps.secrets ?? (deps.masterKey ? createWebhookSecrets({ store: createSqliteWebhookSecretStore(db), clock: deps.clock, masterKey: deps.masterKey }) : undefined);
  if (!secrets) throw new Error('webhookRoutes needs secrets or masterKey');
  const view = (s: { secret: string; createdAt: number; previousExpiresAt: number | null }) => ({
    secret: s.secret,
    created_at: iso(s.createdAt),
    previous_expires_at: iso(s.previousExpiresAt),
  });
  return [
    {
      method: 'get', path: '/webhooks/secret', summary: 'Your webhook signing secret (Standard Webhooks)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at}' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(view(await secrets.getOrCreateSigningSecret(c.var.user.id))),
    },
    {
      method: 'post', path: '/webhooks/secret/rotate', summary: 'Rotate the signing secret (the old one signs alongside for 24 h)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at, previous_expires_at}' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(view(await secrets.rotateSigningSecret(c.var.user.id))),
    },
    {
      method: 'get', path: '/webhooks/messages', summary: 'Webhook deliveries and their attempts', tag: 'Webhooks',
      params: [...pageParams, { name: 'resource_id', in: 'query', description: 'only messages about this record' }],
      ok: { status: 200, description: 'a page of messages' }, errors: ['AuthorizationError', 'BadRequestError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        const resourceId = c.req.query('resource_id');
        const page = await listMessages(db, {
          userId: c.var.user.id,
          limit,
          ...(resourceId ? { resourceId } : {}),
          ...(cursor ? { after: cursor } : {}),
        });
        return c.json({ messages: page.messages, ...(page.next ? { token: pageToken(page.next) } : {}) });
      },
    },
  ];
}
