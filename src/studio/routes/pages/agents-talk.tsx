/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ConfirmDialog, ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';
import type { AgentPageProps } from './agents.tsx';

/**
 * One agent: what it is, talking to it live (agent-talk.js: a stream of the agent over WebRTC
 * through examples/stream/stream.js, and its chat, answers shown and spoken), and its client
 * keys (agent-keys.js: create one for the page origins given, shown once with an embed
 * snippet; list; revoke). `publicUrl` is where a page that embeds the agent reaches mimic.
 */
export function AgentPage({ session, csrf, agentId, publicUrl }: AgentPageProps & { agentId: string; publicUrl: string }) {
  return (
    <Layout title="Agent" session={session} csrf={csrf} scripts={['agent-talk.js', 'agent-keys.js']} styles={['agents.css']} current="/studio/agents">
      <div id="agent-page" data-agent-id={agentId} data-public-url={publicUrl} hidden></div>
      <p class="crumbs">
        <a href="/studio/agents">Agents</a>
      </p>
      <div class="title-row">
        <h1 id="agent-name">Agent</h1>
        <a class="button secondary" href={`/studio/agents/${agentId}/edit`}>
          Edit
        </a>
      </div>
      <StatusLines error="agent-error" />
      <dl id="agent-facts" class="facts"></dl>

      <section class="panel talk" aria-labelledby="talk-heading">
        <h2 id="talk-heading">Talk to it</h2>
        <div class="talk-grid">
          <div class="talk-video">
            <video id="talk-video" playsinline aria-label="The agent, live"></video>
            <div class="row">
              <button id="talk-connect" type="button">
                Start video
              </button>
              <button id="talk-disconnect" type="button" class="secondary" hidden>
                Stop video
              </button>
            </div>
            <p id="talk-status" class="status" role="status" aria-live="polite"></p>
          </div>
          <div class="talk-chat">
            <h3 id="chat-heading">Conversation</h3>
            <ol id="chat-log" class="chat-log" aria-labelledby="chat-heading" aria-live="polite">
              <li class="chat-empty">Nothing said yet. Start the video to see and hear the answers, or just type.</li>
            </ol>
            <div id="chat-starters" class="row starters" hidden></div>
            <form id="chat-form" class="chat-form">
              <label for="chat-message">Your message</label>
              <div class="row">
                <input id="chat-message" type="text" autocomplete="off" maxlength={4000} aria-describedby="chat-error" />
                <button id="chat-send" type="submit">
                  Send
                </button>
              </div>
              <p id="chat-error" class="error" role="alert"></p>
            </form>
          </div>
        </div>
      </section>

      <section class="panel" aria-labelledby="keys-heading">
        <h2 id="keys-heading" tabindex={-1}>
          Client keys
        </h2>
        <p>
          A client key lets a web page talk to this agent, and only this agent, from the origins you list, without an API key. Each visitor of the page is told
          apart by the id the page gives (its end user); chats, streams and credits are yours.
        </p>
        <form id="ck-form" novalidate>
          <label for="ck-origins">Allowed origins, one per line</label>
          <textarea id="ck-origins" rows={2} aria-describedby="ck-origins-hint ck-origins-error" placeholder="https://shop.example"></textarea>
          <p id="ck-origins-hint" class="hint">
            Where the page is served from, as a browser names it: scheme, host and port if not the default; no path (https://shop.example,
            http://localhost:5173).
          </p>
          <p id="ck-origins-error" class="error field-error" data-error-for="allowed_domains"></p>
          <label for="ck-name">Name (optional)</label>
          <input id="ck-name" type="text" maxlength={100} autocomplete="off" aria-describedby="ck-name-error" />
          <p id="ck-name-error" class="error field-error" data-error-for="name"></p>
          <div class="row form-actions">
            <button id="ck-create" type="submit">
              Create a client key
            </button>
          </div>
        </form>
        <div id="ck-created" hidden>
          <label for="ck-created-value">Your new client key, shown only now</label>
          <div class="row">
            <input id="ck-created-value" class="key-value" type="text" readonly autocomplete="off" spellcheck={false} aria-describedby="ck-created-hint" />
            <button id="ck-copy" type="button" class="secondary">
              Copy key
            </button>
          </div>
          <p id="ck-created-hint" class="hint">
            mimic keeps only a hash of it and cannot show it again. It is meant to be in a public page: what limits it is the agent and the origins.
          </p>
          <label for="ck-snippet">Embed snippet, with the key filled in</label>
          <textarea id="ck-snippet" class="snippet" rows={14} readonly spellcheck={false} aria-describedby="ck-snippet-hint"></textarea>
          <div class="row">
            <button id="ck-snippet-copy" type="button" class="secondary">
              Copy snippet
            </button>
          </div>
          <p id="ck-snippet-hint" class="hint">
            Paste it into a page served from one of the origins. It loads the agents SDK (@d-id/client-sdk) and connects with this key; the page's visitor is its
            end user.
          </p>
        </div>
        <StatusLines status="ck-status" error="ck-error" />
        <ListTable labelledBy="keys-heading" rows="ck-rows" columns={['Key', 'Allowed origins', 'Created', { hidden: 'Actions' }]} />
      </section>
      <NeedsScript />
      <ConfirmDialog id="ck-revoke" title="Revoke this client key?" confirm="Revoke client key" value="revoke">
        Client key <code id="ck-revoke-prefix"></code> stops working at once: pages using it can no longer talk to the agent. This cannot be undone.
      </ConfirmDialog>
    </Layout>
  );
}
