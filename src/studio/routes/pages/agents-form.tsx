/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ConfirmDialog, NeedsScript } from '../components.tsx';
import { Layout } from '../layout.tsx';
import type { AgentPageProps } from './agents.tsx';

/** A field's error, filled by agent-form.js from the API's JsonError details (`data-error-for` is the field path they name). */
function FieldError({ id, field }: { id: string; field: string }) {
  return <p id={id} class="error field-error" data-error-for={field}></p>;
}

/**
 * A new agent (`agentId` absent) or the form of one to change. agent-form.js fills the
 * pickers from the API (GET /clips/presenters, /tts/voices, /secrets, /tools), loads the
 * agent to change (GET /agents/{id}), and sends POST /agents or PATCH /agents/{id}; the API's
 * validation errors show beside the field they name. `novalidate`: the API's own words, not
 * the browser's, say what is wrong.
 */
export function AgentFormPage({ session, csrf, agentId }: AgentPageProps & { agentId?: string }) {
  const title = agentId ? 'Edit agent' : 'New agent';
  return (
    <Layout title={title} session={session} csrf={csrf} scripts={['agent-form.js']} styles={['agents.css']} current="/studio/agents">
      <p class="crumbs">
        <a href="/studio/agents">Agents</a>
        {agentId ? (
          <>
            {' / '}
            <a href={`/studio/agents/${agentId}`} id="agent-back">
              this agent
            </a>
          </>
        ) : null}
      </p>
      <h1 id="agent-form-title" tabindex={-1}>
        {title}
      </h1>
      <form id="agent-form" class="agent-form" novalidate data-agent-id={agentId ?? ''} aria-busy="true">
        <p id="agent-form-error" class="error" role="alert" tabindex={-1}></p>
        <section class="panel" aria-labelledby="agent-about">
          <h2 id="agent-about">About</h2>
          <label for="agent-name">Name</label>
          <input id="agent-name" name="preview_name" type="text" maxlength={200} autocomplete="off" aria-describedby="err-name" />
          <FieldError id="err-name" field="preview_name" />
          <label for="agent-description">Description (optional)</label>
          <input id="agent-description" name="preview_description" type="text" maxlength={2000} autocomplete="off" aria-describedby="err-description" />
          <FieldError id="err-description" field="preview_description" />
        </section>

        <section class="panel" aria-labelledby="agent-face">
          <h2 id="agent-face">Face and voice</h2>
          <fieldset id="presenter-field" class="presenters" aria-describedby="presenter-hint err-presenter">
            <legend>Presenter</legend>
            <p id="presenter-hint" class="hint">
              Who speaks. Your own presenters (trained from your footage) come after the built-in ones.
            </p>
            <div id="presenter-options" class="presenter-grid">
              <p class="hint">Loading presenters…</p>
            </div>
            <button id="presenters-more" type="button" class="secondary" hidden>
              Show more presenters
            </button>
          </fieldset>
          <FieldError id="err-presenter" field="presenter" />
          <label for="agent-voice">Voice</label>
          <select id="agent-voice" aria-describedby="voice-hint err-voice">
            <option value="">The presenter's own voice</option>
          </select>
          <p id="voice-hint" class="hint">
            The voice the answers are spoken in.
          </p>
          <FieldError id="err-voice" field="presenter.voice" />
        </section>

        <section class="panel" aria-labelledby="agent-model">
          <h2 id="agent-model">Language model</h2>
          <label for="llm-provider">Model provider</label>
          <select id="llm-provider" aria-describedby="err-provider">
            <option value="openai">An OpenAI-compatible server (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp)</option>
            <option value="custom">A custom model URL (the hosted service's custom contract)</option>
          </select>
          <FieldError id="err-provider" field="llm.provider" />
          <div id="openai-fields">
            <label for="llm-model">Model</label>
            <input id="llm-model" type="text" maxlength={200} autocomplete="off" placeholder="gpt-4o-mini" aria-describedby="model-hint err-model" />
            <p id="model-hint" class="hint">
              The model's name on that server, e.g. gpt-4o-mini or llama3.2.
            </p>
            <FieldError id="err-model" field="llm.model" />
            <label for="llm-base-url">Server URL (optional)</label>
            <input id="llm-base-url" type="url" maxlength={2048} autocomplete="off" placeholder="https://api.openai.com/v1" aria-describedby="base-url-hint err-base-url" />
            <p id="base-url-hint" class="hint">
              Empty: OpenAI itself (it needs a key). A local Ollama is http://localhost:11434/v1; with a key, the URL must be https.
            </p>
            <FieldError id="err-base-url" field="llm.base_url" />
          </div>
          <div id="custom-fields" hidden>
            <label for="llm-custom-url">Model URL</label>
            <input id="llm-custom-url" type="url" maxlength={2048} autocomplete="off" placeholder="https://models.example.com/chat" aria-describedby="custom-url-hint err-custom-url" />
            <p id="custom-url-hint" class="hint">
              It answers {'{content}'} or streams deltas as server-sent events; it gets the key in x-api-key. A custom model is offered no tools.
            </p>
            <FieldError id="err-custom-url" field="llm.custom" />
          </div>
          <label for="llm-secret">The model's key</label>
          <select id="llm-secret" aria-describedby="secret-hint err-secret">
            <option value="">None: the server needs no key</option>
          </select>
          <p id="secret-hint" class="hint">
            A secret from your vault, sent to the model with each request and never shown. Store a new key under <a href="/studio/secrets">Secrets</a> (or POST
            /secrets), then pick it here.
          </p>
          <FieldError id="err-secret" field="llm.secret_id" />
          <label for="llm-temperature">Temperature (optional, 0 to 2)</label>
          <input id="llm-temperature" type="number" min={0} max={2} step={0.1} inputmode="decimal" aria-describedby="err-temperature" />
          <FieldError id="err-temperature" field="llm.temperature" />
          <label for="llm-instructions">Instructions</label>
          <textarea id="llm-instructions" rows={6} maxlength={20000} aria-describedby="instructions-hint err-instructions"></textarea>
          <p id="instructions-hint" class="hint">
            What the agent does and how it behaves: the model reads this before every conversation.
          </p>
          <FieldError id="err-instructions" field="llm.instructions" />
        </section>

        <section class="panel" aria-labelledby="agent-tools">
          <h2 id="agent-tools">Tools</h2>
          <fieldset id="tools-field" aria-describedby="tools-hint err-tools">
            <legend>Tools the model may call</legend>
            <p id="tools-hint" class="hint">
              Any of your tools, offered to the model in this order. A server tool runs through mimic with its secret attached; a client tool is handed to the page.
            </p>
            <div id="tool-options" class="tool-list">
              <p class="hint">Loading tools…</p>
            </div>
          </fieldset>
          <FieldError id="err-tools" field="llm.tools" />
        </section>

        <section class="panel" aria-labelledby="agent-opening">
          <h2 id="agent-opening">Opening the conversation</h2>
          <label for="agent-greetings">Greetings (optional, one per line)</label>
          <textarea id="agent-greetings" rows={2} aria-describedby="greetings-hint err-greetings"></textarea>
          <p id="greetings-hint" class="hint">
            One is shown at random when a chat starts.
          </p>
          <FieldError id="err-greetings" field="greetings" />
          <label for="agent-starters">Suggested questions (optional, one per line)</label>
          <textarea id="agent-starters" rows={2} aria-describedby="err-starters"></textarea>
          <FieldError id="err-starters" field="starter_message" />
        </section>

        <div class="row form-actions">
          <button id="agent-save" type="submit">
            {agentId ? 'Save changes' : 'Create agent'}
          </button>
          <a class="button secondary" href={agentId ? `/studio/agents/${agentId}` : '/studio/agents'}>
            Cancel
          </a>
        </div>
        <p id="agent-form-status" class="status" role="status" aria-live="polite"></p>
      </form>
      {agentId ? (
        <section class="panel danger-zone" aria-labelledby="agent-delete-heading">
          <h2 id="agent-delete-heading">Delete this agent</h2>
          <p>Its chats and client keys go with it; pages that embed it stop working. The tools and secrets it uses stay.</p>
          <button id="agent-delete" type="button" class="danger">
            Delete agent
          </button>
          <p id="agent-delete-error" class="error" role="alert"></p>
        </section>
      ) : null}
      <NeedsScript />
      {agentId ? (
        <ConfirmDialog id="agent-delete" title="Delete this agent?" confirm="Delete agent" value="delete">
          The agent, its chats and its client keys are deleted at once: pages that embed it stop working. This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </Layout>
  );
}
