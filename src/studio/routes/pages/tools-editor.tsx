/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { NeedsScript } from '../components.tsx';
import { Layout } from '../layout.tsx';

/** What a new tool's parameters start as: a schema a person edits rather than writes from nothing. */
export const STARTER_PARAMETERS = `{
  "type": "object",
  "properties": {
    "city": { "type": "string", "description": "the city, e.g. Lisbon" }
  },
  "required": ["city"],
  "additionalProperties": false
}
`;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A field's error line, tied to its control by aria-describedby; tool.js writes it. */
const FieldError = ({ id }: { id: string }) => <p id={id} class="error field-error"></p>;

/**
 * The tool editor (`/studio/tools/new`, `/studio/tools/{id}`): the fields of POST and PUT
 * /tools, the parameters as JSON Schema text checked as it is typed (JSON syntax with line and
 * column here, then POST /tools/validate for everything the service checks), and "Try it",
 * which calls POST /tools/{id}/calls and shows the answer as the API returns it (credentials
 * masked). tool.js does all of it with the session's token; `data-tool-id` is all the page gives it.
 */
export function ToolEditorPage({ session, csrf, toolId }: { session: StudioSession; csrf: string; toolId?: string }) {
  const title = toolId ? 'Edit tool' : 'New tool';
  return (
    <Layout title={title} session={session} csrf={csrf} scripts={['tool.js']} styles={['tools.css']} current="/studio/tools">
      <p class="breadcrumb">
        <a href="/studio/tools">Tools</a>
      </p>
      <h1 id="tool-title">{title}</h1>
      <p id="tool-status" class="status" role="status" aria-live="polite" tabindex={-1}></p>
      <form id="tool-form" class="tool-form" novalidate data-tool-id={toolId ?? ''} aria-busy={toolId ? 'true' : 'false'}>
        <fieldset class="panel">
          <legend>About the tool</legend>
          <label for="tool-name">Name</label>
          <input id="tool-name" name="name" type="text" required maxlength={64} autocomplete="off" spellcheck={false} aria-describedby="tool-name-hint tool-name-error" />
          <p id="tool-name-hint" class="hint">
            What the model calls it: 1 to 64 letters, digits, <code>_</code> or <code>-</code>, e.g. <code>get_weather</code>.
          </p>
          <FieldError id="tool-name-error" />
          <label for="tool-description">Description</label>
          <textarea id="tool-description" name="description" rows={3} required maxlength={4096} aria-describedby="tool-description-hint tool-description-error"></textarea>
          <p id="tool-description-hint" class="hint">
            The model reads it to decide when to call the tool: say what it does and what it answers.
          </p>
          <FieldError id="tool-description-error" />
          <label for="tool-provider">Provider</label>
          <input id="tool-provider" name="provider" type="text" required maxlength={200} autocomplete="off" aria-describedby="tool-provider-hint tool-provider-error" />
          <p id="tool-provider-hint" class="hint">
            Who runs the API it calls, for your own records (e.g. <code>weather-api</code>).
          </p>
          <FieldError id="tool-provider-error" />
        </fieldset>

        <fieldset class="panel">
          <legend>Where it runs</legend>
          <div class="choices">
            <label class="choice" for="tool-kind-server">
              <input id="tool-kind-server" type="radio" name="kind" value="server" checked /> Server: mimic makes an HTTP request
            </label>
            <label class="choice" for="tool-kind-client">
              <input id="tool-kind-client" type="radio" name="kind" value="client" /> Client: it runs in your user's browser
            </label>
          </div>
          <div id="server-fields">
            <label for="tool-url">URL</label>
            <input id="tool-url" name="url" type="text" inputmode="url" required maxlength={2048} autocomplete="off" spellcheck={false} aria-describedby="tool-url-hint tool-url-error" />
            <p id="tool-url-hint" class="hint">
              http or https; <code>{'{name}'}</code> in the path or query is filled from the argument of that name, e.g. <code>https://api.example.com/weather/{'{city}'}</code>.
              With a secret, https only.
            </p>
            <FieldError id="tool-url-error" />
            <div class="two">
              <div>
                <label for="tool-method">Method</label>
                <select id="tool-method" name="method" aria-describedby="tool-method-hint tool-method-error">
                  {METHODS.map((m) => (
                    <option value={m}>{m}</option>
                  ))}
                </select>
                <p id="tool-method-hint" class="hint">
                  GET and DELETE send the arguments as the query; the others as a JSON body.
                </p>
                <FieldError id="tool-method-error" />
              </div>
              <div>
                <label for="tool-timeout">Timeout in milliseconds (optional)</label>
                <input id="tool-timeout" name="timeout_ms" type="number" min={100} max={60000} step={100} inputmode="numeric" aria-describedby="tool-timeout-hint tool-timeout-error" />
                <p id="tool-timeout-hint" class="hint">
                  100 to 60000; 10000 when left empty.
                </p>
                <FieldError id="tool-timeout-error" />
              </div>
            </div>
            <label for="tool-secret">Secret</label>
            <select id="tool-secret" name="secret_id" aria-describedby="tool-secret-hint tool-secret-error">
              <option value="">No secret</option>
            </select>
            <p id="tool-secret-hint" class="hint">
              Its credential is attached to each request and masked in every answer; its value is never shown here.
            </p>
            <FieldError id="tool-secret-error" />
          </div>
        </fieldset>

        <fieldset class="panel">
          <legend>Parameters</legend>
          <label for="tool-parameters">The arguments, as a JSON Schema</label>
          <p id="tool-parameters-hint" class="hint">
            A JSON Schema (draft-07) with <code>"type": "object"</code>. Each of its <code>properties</code> is an argument the model fills in. Checked as you type, by the same
            rules the service uses.
          </p>
          <textarea
            id="tool-parameters"
            name="parameters"
            class="code"
            rows={14}
            spellcheck={false}
            autocomplete="off"
            autocapitalize="off"
            wrap="off"
            aria-describedby="tool-parameters-hint parameters-check"
          >
            {toolId ? '' : STARTER_PARAMETERS}
          </textarea>
          <div id="parameters-check" class="check" role="status" aria-live="polite">
            <p id="parameters-verdict" class="verdict"></p>
            <ul id="parameters-problems" class="problems"></ul>
            <button id="parameters-goto" type="button" class="secondary small" hidden>
              Show me where
            </button>
          </div>
        </fieldset>

        <p id="tool-form-error" class="error" role="alert"></p>
        <div class="row">
          <button id="tool-save" type="submit">
            {toolId ? 'Save changes' : 'Create tool'}
          </button>
          <a href="/studio/tools">Back to your tools</a>
        </div>
      </form>

      <section id="try" class="panel try" aria-labelledby="try-heading" hidden>
        <h2 id="try-heading">Try it</h2>
        <p id="try-note" class="hint">
          Calls the tool as saved (POST /tools/{'{id}'}/calls), as an agent's model would, and shows the answer as the API returns it: credentials masked.
        </p>
        <p id="try-unsaved" class="notice" hidden>
          You have unsaved changes: Try it calls the tool as it was last saved.
        </p>
        <form id="try-form" novalidate>
          <fieldset class="choices inline">
            <legend>Arguments</legend>
            <label class="choice" for="try-mode-form">
              <input id="try-mode-form" type="radio" name="try-mode" value="form" checked /> As a form
            </label>
            <label class="choice" for="try-mode-json">
              <input id="try-mode-json" type="radio" name="try-mode" value="json" /> As JSON
            </label>
          </fieldset>
          <div id="try-fields"></div>
          <div id="try-json-box" hidden>
            <label for="try-json">Arguments (a JSON object)</label>
            <textarea id="try-json" class="code" rows={6} spellcheck={false} autocomplete="off" wrap="off" aria-describedby="try-json-error"></textarea>
            <p id="try-json-error" class="error field-error"></p>
          </div>
          <p id="try-error" class="error" role="alert"></p>
          <button id="try-call" type="submit">
            Call the tool
          </button>
        </form>
        <div id="try-result" class="try-result" hidden tabindex={-1} aria-labelledby="try-result-heading">
          <h3 id="try-result-heading">Answer</h3>
          <dl class="facts">
            <dt>Status</dt>
            <dd id="try-result-status"></dd>
            <dt>Took</dt>
            <dd id="try-result-duration"></dd>
            <dt>Call</dt>
            <dd>
              <code id="try-result-call"></code>
            </dd>
          </dl>
          <h4>Headers</h4>
          <dl id="try-result-headers" class="facts headers"></dl>
          <h4>Body</h4>
          <pre id="try-result-body" class="code-block" tabindex={0}></pre>
        </div>
      </section>
      <section id="try-client" class="panel" hidden>
        <h2>Try it</h2>
        <p>A client tool runs in your user's browser: mimic never calls it, so there is nothing to try from here.</p>
      </section>
      <NeedsScript />
    </Layout>
  );
}
