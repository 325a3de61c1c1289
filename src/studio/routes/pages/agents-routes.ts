import type { Hono } from 'hono';
import type { StudioDeps, StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { AgentsPage } from './agents.tsx';
import { AgentFormPage } from './agents-form.tsx';
import { AgentPage } from './agents-talk.tsx';

/** An agent id as the API makes them (`agt_…`): anything else is the studio's 404, not a page that fails later. */
const AGENT_ID = '{agt_[A-Za-z0-9]{1,64}}';

/**
 * The agents pages: the list, a new agent, one agent (talk, client keys) and its form. Whether
 * the agent is the person's is the API's answer (GET /agents/{id} is 404 for another's): the
 * page holds nothing of it but the id.
 */
export function agentPageRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  const who = (c: { get(k: 'session'): StudioEnv['Variables']['session']; get(k: 'csrf'): string | undefined }) => ({ session: c.get('session')!, csrf: c.get('csrf')! });
  app.get('/agents', requireSession(), (c) => c.html(AgentsPage(who(c))));
  app.get('/agents/new', requireSession(), (c) => c.html(AgentFormPage(who(c))));
  app.get(`/agents/:id${AGENT_ID}`, requireSession(), (c) => c.html(AgentPage({ ...who(c), agentId: c.req.param('id'), publicUrl: deps.publicUrl })));
  app.get(`/agents/:id${AGENT_ID}/edit`, requireSession(), (c) => c.html(AgentFormPage({ ...who(c), agentId: c.req.param('id') })));
}
