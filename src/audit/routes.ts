import type { Route } from '../platform/module.ts';
import { pageParams } from '../http/params.ts';
import { parsePage, toPage } from '../pagination.ts';
import { AuditList } from './schemas.ts';
import type { AuditStore } from './store.ts';
import { presentAuditEvent } from './present.ts';
import { auditFilterOf } from './filter.ts';

/** GET /audit: the caller's own trail, newest first; filtered by secret, tool, action (or family), outcome and time. */
export function auditRoutes(audit: AuditStore): Route[] {
  return [
    {
      method: 'get', path: '/audit', summary: 'Your audit trail of secrets, tools and sign-ins, newest first', tag: 'Audit',
      description:
        'Filters combine (all must hold); an empty one is ignored. A page token continues the same filtered list: send the same filters with it. ' +
        'A bad filter is a 400 BadRequestError naming each field in `details`.',
      params: [
        ...pageParams,
        { name: 'secret_id', in: 'query', description: 'only events of this secret' },
        { name: 'tool_id', in: 'query', description: 'only events of this tool' },
        { name: 'action', in: 'query', description: 'only this action (secret.used), or a family of them (account.*, secret.*, tool.*)' },
        { name: 'outcome', in: 'query', description: 'success or failure' },
        { name: 'since', in: 'query', description: 'events at or after this time: ISO 8601 with its zone (2026-11-28T08:00:00Z), or a date (midnight UTC)' },
        { name: 'until', in: 'query', description: 'events before this time (same forms as since)' },
      ],
      ok: { status: 200, schema: AuditList, description: 'a page of events' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const q = c.req.query();
        const { limit, cursor } = parsePage(q);
        const filter = auditFilterOf(c.get('user').id, q);
        const page = toPage(await audit.list(filter, limit + 1, cursor), limit, (e) => ({ createdAt: e.at, id: e.id }));
        return c.json({ events: page.items.map(presentAuditEvent), ...(page.token ? { token: page.token } : {}) });
      },
    },
  ];
}
