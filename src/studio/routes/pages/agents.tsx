/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
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
      <p id="agents-error" class="error" role="alert"></p>
      <h2 id="agents-heading" class="visually-hidden">
        Your agents
      </h2>
      <table aria-labelledby="agents-heading" aria-busy="true" class="agents">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Presenter</th>
            <th scope="col">Model</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody id="agents-rows">
          <tr>
            <td colspan={4}>Loading…</td>
          </tr>
        </tbody>
      </table>
      <p>
        <button id="agents-more" type="button" class="secondary" hidden>
          Show more agents
        </button>
      </p>
      <noscript>
        <p class="error">This page needs JavaScript: it calls the API from your browser.</p>
      </noscript>
    </Layout>
  );
}
