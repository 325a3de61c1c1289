/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

export interface AgentPageProps {
  session: StudioSession;
  csrf: string;
}

/**
 * The agents page: the person's agents (agents.js calls GET /agents/me with the session's
 * token) and the way to a new one. Each agent links to its own page (talk, client keys).
 */
export function AgentsPage({ session, csrf }: AgentPageProps) {
  return (
    <Layout title="Agents" session={session} csrf={csrf} scripts={['agents.js']} styles={['agents.css']} current="/studio/agents">
      <div class="title-row">
        <h1>Agents</h1>
        <a class="button" href="/studio/agents/new">
          New agent
        </a>
      </div>
      <p class="lead">
        An agent is a presenter that answers: a face, a voice, a language model with its instructions, and the tools it may call. Talk to one here, then put it on
        your site with a client key.
      </p>
      <StatusLines error="agents-error" />
      <ListTable
        class="agents"
        heading={{ id: 'agents-heading', text: 'Your agents', hidden: true }}
        rows="agents-rows"
        columns={['Name', 'Presenter', 'Model', 'Created']}
        more={{ id: 'agents-more', text: 'Show more agents' }}
      />
      <NeedsScript />
    </Layout>
  );
}
