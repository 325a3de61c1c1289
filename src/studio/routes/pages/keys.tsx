/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { MAX_ACTIVE_KEYS } from '../../../users/contract.ts';
import { Layout } from '../layout.tsx';

/**
 * The API keys page. The list, creating and revoking are keys.js calling GET/POST/DELETE /keys
 * with the session's token: the page itself holds no key.
 */
export function KeysPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="API keys" session={session} csrf={csrf} scripts={['keys.js']} current="/studio/keys">
      <h1>API keys</h1>
      <p class="lead">
        A program calls the API with a key in <code>Authorization: Basic &lt;key&gt;</code>. A key is shown once, when it is created; you may hold up to{' '}
        {MAX_ACTIVE_KEYS} active keys.
      </p>
      <section class="panel" aria-labelledby="key-create-heading">
        <h2 id="key-create-heading">New key</h2>
        <button id="key-create" type="button">
          Create a key
        </button>
        <div id="key-created" hidden>
          <label for="key-created-value">Your new key, shown only now</label>
          <div class="row">
            <input id="key-created-value" class="key-value" type="text" readonly autocomplete="off" spellcheck={false} aria-describedby="key-created-hint" />
            <button id="key-copy" type="button" class="secondary">
              Copy
            </button>
          </div>
          <p id="key-created-hint" class="hint">
            Put it in your program's secrets now: mimic keeps only a hash of it and cannot show it again.
          </p>
        </div>
      </section>
      <p id="keys-status" class="status" role="status" aria-live="polite" tabindex={-1}></p>
      <p id="keys-error" class="error" role="alert"></p>
      <h2 id="keys-heading" tabindex={-1}>
        Your keys
      </h2>
      <table aria-labelledby="keys-heading" aria-busy="true">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody id="keys-rows">
          <tr>
            <td colspan={4}>Loading…</td>
          </tr>
        </tbody>
      </table>
      <p>
        <button id="keys-more" type="button" class="secondary" hidden>
          Show more keys
        </button>
      </p>
      <noscript>
        <p class="error">This page needs JavaScript: it calls the API from your browser.</p>
      </noscript>
      <dialog id="key-revoke-dialog" aria-labelledby="key-revoke-title" aria-describedby="key-revoke-text">
        <form method="dialog">
          <h2 id="key-revoke-title">Revoke this key?</h2>
          <p id="key-revoke-text">
            Key <code id="key-revoke-prefix"></code> stops working at once: a program using it is refused from its next request. This cannot be undone.
          </p>
          <div class="row">
            <button value="cancel" class="secondary" autofocus>
              Cancel
            </button>
            <button value="revoke" class="danger solid">
              Revoke key
            </button>
          </div>
        </form>
      </dialog>
    </Layout>
  );
}
