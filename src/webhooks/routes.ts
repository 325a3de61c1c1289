import type { Route } from '../platform/module.ts';
import { pageParams } from '../http/params.ts';
import { parsePage, pageToken } from '../pagination.ts';
import type { OutboxStore } from './outbox-store.ts';
import type { WebhookSecrets } from './secrets.ts';

export interface WebhookRouteDeps {
  outbox: Pick<OutboxStore, 'listMessages'>;
  secrets: WebhookSecrets;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The owner's view of webhooks (mounted under auth): the signing secret to verify our
 * deliveries with, its rotation, and the delivery log. Only the caller's own rows.
 */
export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  const { outbox, secrets } = deps;
  const view = (s: { secret: string; createdAt: number; previousExpiresAt: number | null }) => ({
    secret: s.secret,
    created_at: iso(s.createdAt),
    previous_expires_at: iso(s.previousExpiresAt),
  });
  return [
    {
      method: 'get', path: '/webhooks/secret', summary: 'Your webhook signing secret (Standard Webhooks)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at}' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(view(await secrets.getOrCreateSigningSecret(c.get('user').id))),
    },
    {
      method: 'post', path: '/webhooks/secret/rotate', summary: 'Rotate the signing secret (the old one signs alongside for 24 h)', tag: 'Webhooks',
      ok: { status: 200, description: '{secret, created_at, previous_expires_at}' }, errors: ['AuthorizationError'],
      handler: async (c) => c.json(view(await secrets.rotateSigningSecret(c.get('user').id))),
    },
    {
      method: 'get', path: '/webhooks/messages', summary: 'Webhook deliveries and their attempts', tag: 'Webhooks',
      params: [...pageParams, { name: 'resource_id', in: 'query', description: 'only messages about this record' }],
      ok: { status: 200, description: 'a page of messages' }, errors: ['AuthorizationError', 'BadRequestError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        const resourceId = c.req.query('resource_id');
        const page = await outbox.listMessages({
          userId: c.get('user').id,
          limit,
          ...(resourceId ? { resourceId } : {}),
          ...(cursor ? { after: cursor } : {}),
        });
        return c.json({ messages: page.messages, ...(page.next ? { token: pageToken(page.next) } : {}) });
      },
    },
  ];
}
