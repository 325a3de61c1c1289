import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { parsePage, toPage } from '../../pagination.ts';
import type { AuditStore } from '../../audit/store.ts';
import { presentAuditEvent } from '../../audit/present.ts';

/** GET /audit: the caller's own trail, newest first; filter by secret_id, tool_id or action. */
export function auditRoutes(audit: AuditStore) {
  return new Hono<AppEnv>().get('/audit', async (c) => {
    const { limit, cursor } = parsePage(c.req.query());
    const q = c.req.query();
    const page = toPage(
      await audit.list(
      { userId: c.var.user.id, ...(q.secret_id ? { secretId: q.secret_id } : {}), ...(q.tool_id ? { toolId: q.tool_id } : {}), ...(q.action ? { action: q.action } : {}) },
        limit + 1,
        cursor,
      ),
      limit,
      (e) => ({ createdAt: e.at, id: e.id }),
    );
    return c.json({ events: page.items.map(presentAuditEvent), ...(page.token ? { token: page.token } : {}) });
  });
}
