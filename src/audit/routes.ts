import type { Route } from '../platform/module.ts';
import { pageParams } from '../http/params.ts';
import { parsePage, toPage } from '../pagination.ts';
import { AuditList } from './schemas.ts';
import type { AuditStore } from './store.ts';
import { presentAuditEvent } from './present.ts';

/** GET /audit: the caller's own trail, newest first; filter by secret_id, tool_id or action. */
export function auditRoutes(audit: AuditStore): Route[] {
  return [
    {
      method: 'get', path: '/audit', summary: 'Your audit trail of secrets and tools, newest first', tag: 'Audit',
      params: [
        ...pageParams,
        { name: 'secret_id', in: 'query', description: 'only events of this secret' },
        { name: 'tool_id', in: 'query', description: 'only events of this tool' },
        { name: 'action', in: 'query', description: 'only this action, e.g. secret.used' },
      ],
      ok: { status: 200, schema: AuditList, description: 'a page of events' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        const q = c.req.query();
        const filter = { userId: c.get('user').id, ...(q.secret_id ? { secretId: q.secret_id } : {}), ...(q.tool_id ? { toolId: q.tool_id } : {}), ...(q.action ? { action: q.action } : {}) };
        const page = toPage(await audit.list(filter, limit + 1, cursor), limit, (e) => ({ createdAt: e.at, id: e.id }));
        return c.json({ events: page.items.map(presentAuditEvent), ...(page.token ? { token: page.token } : {}) });
      },
    },
  ];
}
