import type { Context, Hono } from 'hono';
import type { StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { ToolsPage } from './tools.tsx';
import { ToolEditorPage } from './tools-editor.tsx';
import { AuditPage } from './audit.tsx';

/** The tools pages (the list, a new tool, one tool's editor) and the audit log, each behind requireSession. */
export function toolAndAuditPages(app: Hono<StudioEnv>): void {
  const who = (c: Context<StudioEnv>) => ({ session: c.get('session')!, csrf: c.get('csrf')! });
  app.get('/tools', requireSession(), (c) => c.html(ToolsPage(who(c))));
  app.get('/tools/new', requireSession(), (c) => c.html(ToolEditorPage(who(c))));
  // Any id renders the editor; tool.js asks GET /tools/{id}, whose 404 it shows in words.
  app.get('/tools/:id{[A-Za-z0-9_-]{1,100}}', requireSession(), (c) => c.html(ToolEditorPage({ ...who(c), toolId: c.req.param('id') })));
  app.get('/audit', requireSession(), (c) => c.html(AuditPage(who(c))));
}
