// "Connect an account": starts the OAuth flow with POST /secrets/oauth2/connections
// (return_to studio: the answer's cookie binds the attempt to this browser), then goes to the
// provider with location.assign: a form posted to mimic that redirected there would be
// stopped by the CSP's form-action 'self'. The provider sends the browser back to mimic's
// callback, which comes back here with ?connection=<id>; the attempt, read through the API,
// says connected or why nothing was stored. Text through textContent only.
import { api, showError } from './api.js';
import { link } from './dom.js';
import { clearFieldErrors, showFieldErrors } from './secret-form.js';

const $ = (id) => document.getElementById(id);
const form = $('connect-form');
const formError = $('connect-error');
const formStatus = $('connect-status');
const result = $('connect-result');
const resultTitle = $('connect-result-title');
const resultText = $('connect-result-text');
const resultActions = $('connect-result-actions');
const tryAgain = $('connect-try-again');
const heading = $('connect-heading');
const issuerFields = $('connect-issuer-fields');
const urlFields = $('connect-url-fields');
const redirectUri = $('redirect-uri');
const secretId = form.dataset.secret;

/** Why an attempt stored nothing, as the person reads it (ConnectionError of the API). */
const FAILURES = {
  denied: ['Access was not allowed', 'You did not allow access at the provider, so nothing was stored.'],
  provider_error: ['The provider refused', 'The provider did not issue tokens. Check the client id, the client secret and the redirect URI registered there.'],
  invalid_response: ['Unusable answer', 'The provider sent an answer that failed mimic\u2019s checks (its ID token, issuer or tokens). Nothing was stored.'],
  no_refresh_token: ['No refresh token', 'The provider issued no refresh token, so the access could not be kept fresh. Ask for its offline scope (offline_access for most) and allow offline access when it asks.'],
  expired: ['The connection attempt expired', 'An attempt lasts 10 minutes from "Continue to the provider". Nothing was stored.'],
  secret_gone: ['The secret was deleted', 'The secret this attempt was to reconnect was deleted meanwhile. Nothing was stored.'],
  interrupted: ['Not finished', 'mimic stopped while finishing the connection. Nothing was stored.'],
  wrong_browser: ['Another browser', 'The connection was finished in another browser than the one that started it, so nothing was stored. Start it again here, and consent in this browser.'],
};

function showResult(title, text, { ok, retry }) {
  result.hidden = false;
  result.classList.toggle('ok', ok);
  result.classList.toggle('failed', !ok);
  resultTitle.textContent = title;
  resultText.setAttribute('role', ok ? 'status' : 'alert');
  resultText.replaceChildren(...text);
  resultActions.hidden = !retry;
  if (retry) tryAgain.href = retry;
  result.focus();
}

/** The attempt the callback came back with: connected, still pending, or why not. */
async function showAttempt(id) {
  const res = await api('GET', `/secrets/oauth2/connections/${encodeURIComponent(id)}`);
  if (res.status !== 200) {
    return showResult('Unknown connection attempt', ['This attempt is not one of yours, or it ended more than a week ago.'], { ok: false, retry: '#connect-heading' });
  }
  const c = res.body;
  // Try again: the form below (a reconnect: the form for that secret).
  const again = c.reconnects ? `/studio/secrets/connect?secret=${encodeURIComponent(c.reconnects)}` : '#connect-heading';
  if (c.status === 'connected') {
    const see = link('/studio/secrets', 'See your secrets');
    const verb = c.reconnects ? 'is connected again' : 'is connected';
    const then = c.reconnects ? ' The tools and agents that use it work again.' : ' Tools can use it now.';
    showResult(c.reconnects ? 'Account reconnected' : 'Account connected', [`${c.provider} ${verb}: it is stored as the oauth2 secret ${c.secret_id}.${then} `, see], { ok: true });
    heading.textContent = 'Connect another account';
    return;
  }
  if (c.status === 'pending' || c.status === 'exchanging') {
    return showResult('Waiting for the provider', ['This attempt has not come back from the provider yet.'], { ok: false, retry: again });
  }
  const [title, text] = FAILURES[c.error] ?? ['Not connected', 'Nothing was stored.'];
  showResult(title, [text], { ok: false, retry: again });
}

// Issuer, or the two URLs.
for (const radio of form.querySelectorAll('input[name="endpoints"]')) {
  radio.addEventListener('change', () => {
    issuerFields.hidden = radio.value !== 'issuer';
    urlFields.hidden = radio.value === 'issuer';
  });
}

function bodyOf() {
  const value = (name) => form.elements.namedItem(name).value.trim();
  const byIssuer = form.querySelector('input[name="endpoints"]:checked').value === 'issuer';
  const body = {
    provider: value('provider'),
    client_id: value('client_id'),
    scopes: value('scopes').split(/\s+/).filter(Boolean),
    return_to: 'studio',
  };
  const secret = form.elements.namedItem('client_secret').value;
  if (secret !== '') body.client_secret = secret;
  if (byIssuer) body.issuer = value('issuer');
  else Object.assign(body, { authorization_url: value('authorization_url'), token_url: value('token_url') });
  if (secretId) body.secret_id = secretId;
  return body;
}

/** The provider's addresses must be https: said in words here, before the API's pattern message. */
function checkUrls(body) {
  const wrong = ['issuer', 'authorization_url', 'token_url'].filter((name) => name in body && !/^https:\/\/[^\s/?#]+/i.test(body[name]));
  const labels = { issuer: 'issuer URL', authorization_url: 'authorization URL', token_url: 'token URL' };
  return !showFieldErrors(form, { body: { details: wrong.map((name) => ({ field: name, message: `must be an https address (https://…)${body[name] ? '' : ', and is required'}` })) } }, labels);
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const submit = form.querySelector('button[type="submit"]');
  clearFieldErrors(form);
  formError.textContent = '';
  const body = bodyOf();
  // The client secret leaves the page with this request only.
  form.elements.namedItem('client_secret').value = '';
  if (!checkUrls(body)) return;
  submit.disabled = true;
  formStatus.textContent = 'Starting the connection…';
  try {
    const res = await api('POST', '/secrets/oauth2/connections', body);
    if (res.status !== 201) {
      formStatus.textContent = '';
      if (!showFieldErrors(form, res)) {
        showError(formError, res);
        formError.focus();
      }
      return;
    }
    formStatus.textContent = `Going to ${new URL(res.body.authorization_url).host} to sign in and allow access…`;
    location.assign(res.body.authorization_url);
  } catch (err) {
    formStatus.textContent = '';
    formError.textContent = err.message;
  } finally {
    submit.disabled = false;
  }
});

tryAgain.addEventListener('click', (event) => {
  if (tryAgain.getAttribute('href') !== '#connect-heading') return;
  event.preventDefault();
  form.elements.namedItem('provider').focus();
});

$('redirect-copy').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(redirectUri.value);
  } catch {
    redirectUri.select();
    document.execCommand('copy');
  }
  formStatus.textContent = 'Redirect URI copied.';
});

/** Reconnect: the secret's name goes in the provider field, and the heading says which. */
async function reconnecting(id) {
  const res = await api('GET', `/secrets/${encodeURIComponent(id)}`);
  if (res.status !== 200) return showError(formError, res);
  if (!form.elements.namedItem('provider').value) form.elements.namedItem('provider').value = res.body.provider;
  heading.textContent = `Reconnect ${res.body.provider}`;
}

if (result.dataset.connection) {
  showAttempt(result.dataset.connection).catch((err) => showResult('Not known', [err.message], { ok: false, retry: '#connect-heading' }));
} else if (!result.hidden) {
  result.focus();
}
if (secretId) reconnecting(secretId).catch((err) => (formError.textContent = err.message));
