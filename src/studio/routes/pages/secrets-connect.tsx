/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { NeedsScript } from '../components.tsx';
import { Layout } from '../layout.tsx';

/** Why the callback sent a browser here without an attempt to show (`?result=`): fixed texts, nothing from the query is shown. */
const RESULTS: Readonly<Record<string, { title: string; text: string }>> = {
  bad_state: { title: 'Unknown connection attempt', text: 'The address the provider sent you back with does not belong to a connection attempt. Nothing was stored.' },
  used_state: { title: 'Already finished', text: 'That connection attempt had already finished: an address from the provider works once. Nothing more was stored.' },
  expired: { title: 'The connection attempt expired', text: 'An attempt lasts 10 minutes from "Continue to the provider". Nothing was stored.' },
};

export interface ConnectPageProps {
  session: StudioSession;
  csrf: string;
  /** Where the provider must send people back: register exactly this at the provider. */
  redirectUri: string;
  /** `?connection=`: the attempt the callback came back with (its script reads it through the API). */
  connection?: string;
  /** `?result=`: a failure the callback could not tie to an attempt. */
  result?: string;
  /** `?secret=`: reconnect this oauth2 secret. */
  secret?: string;
}

const ID = /^[a-z]{2,5}_[A-Za-z0-9_-]{1,64}$/;

/**
 * "Connect an account": the provider's details, then the browser goes to the provider
 * (secrets-connect.js: POST /secrets/oauth2/connections with return_to studio, then
 * location.assign, since the CSP's form-action would stop a form post that redirects there).
 * The callback comes back here with `?connection=` and the script says what happened.
 */
export function ConnectSecretPage({ session, csrf, redirectUri, connection, result, secret }: ConnectPageProps) {
  const known = result !== undefined ? RESULTS[result] : undefined;
  const attempt = connection !== undefined && ID.test(connection) ? connection : undefined;
  const reconnect = secret !== undefined && ID.test(secret) ? secret : undefined;
  return (
    <Layout title={reconnect ? 'Reconnect an account' : 'Connect an account'} session={session} csrf={csrf} scripts={['secrets-connect.js']} styles={['secrets.css']} current="/studio/secrets">
      <p class="breadcrumb">
        <a href="/studio/secrets">Secrets</a>
      </p>
      <section id="connect-result" class="panel result" aria-labelledby="connect-result-title" data-connection={attempt} hidden={!attempt && !known} tabindex={-1}>
        <h2 id="connect-result-title">{known ? known.title : 'Checking the connection…'}</h2>
        <p id="connect-result-text" role={known ? 'alert' : 'status'}>
          {known ? known.text : ''}
        </p>
        <p id="connect-result-actions" class="row" hidden={!known}>
          <a class="button" href="#connect-heading" id="connect-try-again">
            Try again
          </a>
        </p>
      </section>

      <h1 id="connect-heading" tabindex={-1}>
        {reconnect ? 'Reconnect an account' : 'Connect an account'}
      </h1>
      <p class="lead">
        {reconnect
          ? 'The provider withdrew mimic\'s access (or it ran out). Give the same client details and consent again at the provider: the secret keeps its id, and the tools and agents that use it work again.'
          : 'Store access to an account at another service (OAuth 2.0): mimic sends you to the provider to sign in and allow access, keeps the tokens encrypted and refreshes them. Tools can use the account at once.'}
      </p>

      <section class="panel" aria-labelledby="redirect-heading">
        <h2 id="redirect-heading">First, at the provider</h2>
        <p>Register an OAuth client (an "app") at the provider, with this exact redirect URI:</p>
        <div class="row">
          <input id="redirect-uri" class="key-value" type="text" readonly value={redirectUri} aria-label="Redirect URI" spellcheck={false} />
          <button id="redirect-copy" type="button" class="secondary">
            Copy
          </button>
        </div>
        <p class="hint">Then copy its client id and client secret into the form below.</p>
      </section>

      <form id="connect-form" class="panel" novalidate data-secret={reconnect}>
        <h2>The provider</h2>
        <label for="connect-provider">Name</label>
        <input id="connect-provider" name="provider" type="text" required maxlength={200} autocomplete="off" aria-describedby="connect-provider-hint connect-provider-error" />
        <p id="connect-provider-hint" class="hint">
          What the account is, such as google-calendar: the secret is listed under it.
        </p>
        <p id="connect-provider-error" class="error field-error" data-field="provider"></p>

        <fieldset class="endpoints">
          <legend>How mimic finds the provider</legend>
          <label class="choice">
            <input type="radio" name="endpoints" value="issuer" checked />
            Issuer URL <span class="hint">OpenID Connect: the rest is discovered</span>
          </label>
          <label class="choice">
            <input type="radio" name="endpoints" value="urls" />
            Authorization and token URLs <span class="hint">from the provider's OAuth documentation</span>
          </label>
        </fieldset>
        <div id="connect-issuer-fields">
          <label for="connect-issuer">Issuer URL</label>
          <input id="connect-issuer" name="issuer" type="url" inputmode="url" placeholder="https://accounts.example.com" autocomplete="off" spellcheck={false} aria-describedby="connect-issuer-error" />
          <p id="connect-issuer-error" class="error field-error" data-field="issuer"></p>
        </div>
        <div id="connect-url-fields" hidden>
          <label for="connect-authorization_url">Authorization URL</label>
          <input id="connect-authorization_url" name="authorization_url" type="url" inputmode="url" placeholder="https://example.com/oauth/authorize" autocomplete="off" spellcheck={false} aria-describedby="connect-authorization_url-error" />
          <p id="connect-authorization_url-error" class="error field-error" data-field="authorization_url"></p>
          <label for="connect-token_url">Token URL</label>
          <input id="connect-token_url" name="token_url" type="url" inputmode="url" placeholder="https://example.com/oauth/token" autocomplete="off" spellcheck={false} aria-describedby="connect-token_url-error" />
          <p id="connect-token_url-error" class="error field-error" data-field="token_url"></p>
        </div>

        <label for="connect-client_id">Client id</label>
        <input id="connect-client_id" name="client_id" type="text" required autocomplete="off" spellcheck={false} aria-describedby="connect-client_id-error" />
        <p id="connect-client_id-error" class="error field-error" data-field="client_id"></p>
        <label for="connect-client_secret">Client secret</label>
        <input id="connect-client_secret" name="client_secret" type="password" autocomplete="off" spellcheck={false} aria-describedby="connect-client_secret-hint connect-client_secret-error" />
        <p id="connect-client_secret-hint" class="hint">
          Kept encrypted in mimic's vault. Leave it empty for a public client. The page empties this field when you continue.
        </p>
        <p id="connect-client_secret-error" class="error field-error" data-field="client_secret"></p>

        <label for="connect-scopes">Scopes</label>
        <input id="connect-scopes" name="scopes" type="text" value="openid offline_access" autocomplete="off" spellcheck={false} aria-describedby="connect-scopes-hint connect-scopes-error" />
        <p id="connect-scopes-hint" class="hint">
          Separated by spaces. Keep the provider's offline scope (offline_access for most), or it gives no refresh token and the access stops within the hour.
        </p>
        <p id="connect-scopes-error" class="error field-error" data-field="scopes"></p>

        <p id="connect-error" class="error" role="alert" tabindex={-1}></p>
        <p id="connect-status" class="status" role="status" aria-live="polite"></p>
        <p>
          <button type="submit">Continue to the provider</button>
        </p>
      </form>
      <NeedsScript />
    </Layout>
  );
}
