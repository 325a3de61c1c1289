/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { ConfirmDialog, ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/**
 * The secrets page: the person's credentials (never a value), a form per type to store a new
 * one, rotating and deleting, what uses each one, and Reconnect for an oauth2 account whose
 * access was withdrawn. All of it is secrets.js calling /secrets with the session's token.
 */
export function SecretsPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Secrets" session={session} csrf={csrf} scripts={['secrets.js']} styles={['secrets.css']} current="/studio/secrets">
      <h1>Secrets</h1>
      <p class="lead">
        The credentials your tools and agents send to other services. mimic keeps them encrypted and never shows a value again: not here, not in the API.
      </p>
      <div class="row">
        <a class="button" href="/studio/secrets/connect">
          Connect an account (OAuth)
        </a>
      </div>

      <section class="panel" aria-labelledby="secret-new-heading">
        <h2 id="secret-new-heading">New secret</h2>
        <fieldset class="secret-types">
          <legend>Kind of credential</legend>
          <label class="choice">
            <input type="radio" name="secret-type" value="bearer" checked />
            Bearer token <span class="hint">sent as Authorization: Bearer</span>
          </label>
          <label class="choice">
            <input type="radio" name="secret-type" value="api_key" />
            API key <span class="hint">sent in a header of your choice</span>
          </label>
          <label class="choice">
            <input type="radio" name="secret-type" value="basic" />
            Username and password <span class="hint">sent as Authorization: Basic</span>
          </label>
        </fieldset>

        <form id="secret-form-bearer" class="secret-form" data-type="bearer" novalidate>
          <NameField type="bearer" />
          <ValueField type="bearer" name="token" label="Token" />
          <SaveButton />
        </form>
        <form id="secret-form-api_key" class="secret-form" data-type="api_key" novalidate hidden>
          <NameField type="api_key" />
          <ValueField type="api_key" name="api_key" label="API key" />
          <label for="secret-api_key-header_name">Header to send it in</label>
          <input id="secret-api_key-header_name" name="header_name" type="text" placeholder="X-API-Key" autocomplete="off" spellcheck={false} aria-describedby="secret-api_key-header_name-hint secret-api_key-header_name-error" />
          <p id="secret-api_key-header_name-hint" class="hint">
            Leave it empty for X-API-Key.
          </p>
          <p id="secret-api_key-header_name-error" class="error field-error" data-field="header_name"></p>
          <SaveButton />
        </form>
        <form id="secret-form-basic" class="secret-form" data-type="basic" novalidate hidden>
          <NameField type="basic" />
          <label for="secret-basic-username">Username</label>
          <input id="secret-basic-username" name="username" type="text" required autocomplete="off" spellcheck={false} aria-describedby="secret-basic-username-error" />
          <p id="secret-basic-username-error" class="error field-error" data-field="username"></p>
          <ValueField type="basic" name="password" label="Password" />
          <SaveButton />
        </form>
        <p id="secret-form-error" class="error" role="alert"></p>
      </section>

      <StatusLines status="secrets-status" error="secrets-error" focusable="both" />
      <ListTable
        class="secrets"
        heading={{ id: 'secrets-heading', text: 'Your secrets' }}
        rows="secrets-rows"
        columns={['Name', 'Kind', 'Status', 'Created', 'Last changed', 'Used by', { hidden: 'Actions' }]}
        more={{ id: 'secrets-more', text: 'Show more secrets' }}
      />
      <NeedsScript />

      <dialog id="secret-rotate-dialog" aria-labelledby="secret-rotate-title" aria-describedby="secret-rotate-text">
        <form id="secret-rotate-form" method="dialog" novalidate>
          <h2 id="secret-rotate-title">Rotate</h2>
          <p id="secret-rotate-text">The next call of every tool and agent that uses it sends the new value. The old one is gone from mimic.</p>
          <div id="secret-rotate-fields"></div>
          <p id="secret-rotate-error" class="error" role="alert"></p>
          <div class="row">
            <button value="cancel" class="secondary" formnovalidate>
              Cancel
            </button>
            <button id="secret-rotate-save" value="save">
              Save the new value
            </button>
          </div>
        </form>
      </dialog>

      <ConfirmDialog id="secret-delete" title="Delete this secret?" confirm="Delete secret" value="delete">
        <strong id="secret-delete-name"></strong> is deleted from mimic for good. A secret that a tool or an agent still uses cannot be deleted.
      </ConfirmDialog>
    </Layout>
  );
}

function NameField({ type }: { type: string }) {
  return (
    <>
      <label for={`secret-${type}-provider`}>Name</label>
      <input id={`secret-${type}-provider`} name="provider" type="text" required maxlength={200} autocomplete="off" aria-describedby={`secret-${type}-provider-hint secret-${type}-provider-error`} />
      <p id={`secret-${type}-provider-hint`} class="hint">
        What it is for, such as the service's name (crm, weather). Tools and agents show it.
      </p>
      <p id={`secret-${type}-provider-error`} class="error field-error" data-field="provider"></p>
    </>
  );
}

/** A credential value: a password input, never filled by the page, emptied after each save. */
function ValueField({ type, name, label }: { type: string; name: string; label: string }) {
  return (
    <>
      <label for={`secret-${type}-${name}`}>{label}</label>
      <input id={`secret-${type}-${name}`} name={name} type="password" required autocomplete="off" spellcheck={false} aria-describedby={`secret-${type}-${name}-hint secret-${type}-${name}-error`} />
      <p id={`secret-${type}-${name}-hint`} class="hint">
        Shown to no one once saved. The page empties this field after each try.
      </p>
      <p id={`secret-${type}-${name}-error`} class="error field-error" data-field={name}></p>
    </>
  );
}

function SaveButton() {
  return (
    <p>
      <button type="submit">Save secret</button>
    </p>
  );
}
