/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { MAX_ACTIVE_KEYS } from '../../../users/contract.ts';
import { ConfirmDialog, ListTable, NeedsScript, StatusLines } from '../components.tsx';
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
      <StatusLines status="keys-status" error="keys-error" focusable="status" />
      <ListTable
        heading={{ id: 'keys-heading', text: 'Your keys' }}
        rows="keys-rows"
        columns={['Key', 'Created', 'Status', { hidden: 'Actions' }]}
        more={{ id: 'keys-more', text: 'Show more keys' }}
      />
      <NeedsScript />
      <ConfirmDialog id="key-revoke" title="Revoke this key?" confirm="Revoke key" value="revoke">
        Key <code id="key-revoke-prefix"></code> stops working at once: a program using it is refused from its next request. This cannot be undone.
      </ConfirmDialog>
    </Layout>
  );
}
