import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Route } from '../../platform/module.ts';
import { jsonBody } from '../../http/body.ts';
import { idParam } from '../../http/params.ts';
import { Connection, StartConnection, StartedConnection } from './schemas.ts';
import {
  BROWSER_BINDING, CALLBACK_PATH, CONNECTION_TTL_MS, STUDIO_RESULT_PATH, completeConnection, fetchConnection, startConnection, type CallbackOutcome, type ConnectDeps,
} from './flow.ts';

/**
 * The cookie that binds the studio's attempts to the browser that started them: random, one
 * per browser (kept while attempts are started), sent only to /secrets/oauth2/ (the start and
 * the callback). `__Secure-` and Secure when the public URL is https.
 */
const BINDING_COOKIE = 'mimic_oauth';
const BINDING_PATH = '/secrets/oauth2/';

function bindingCookie(c: Context, secure: boolean): string | undefined {
  const value = secure ? getCookie(c, BINDING_COOKIE, 'secure') : getCookie(c, BINDING_COOKIE);
  return value !== undefined && BROWSER_BINDING.test(value) ? value : undefined;
}

function setBindingCookie(c: Context, secure: boolean, value: string): void {
  const options = { httpOnly: true, sameSite: 'Lax', path: BINDING_PATH, maxAge: CONNECTION_TTL_MS / 1000 } as const;
  if (secure) setCookie(c, BINDING_COOKIE, value, { ...options, secure: true, prefix: 'secure' });
  else setCookie(c, BINDING_COOKIE, value, options);
}

/**
 * Where the callback sends a browser back to the studio: a studio attempt to its page (which
 * reads the attempt through the API), and a failure it cannot place (unknown, used or expired
 * state) in a browser that has started studio attempts to the same page with the reason.
 */
function studioReturn(outcome: CallbackOutcome, hasBinding: boolean): string | undefined {
  if (outcome.studio) return `${STUDIO_RESULT_PATH}?connection=${encodeURIComponent(outcome.connectionId!)}`;
  if (!outcome.ok && hasBinding && (outcome.reason === 'bad_state' || outcome.reason === 'used_state' || outcome.reason === 'expired')) {
    return `${STUDIO_RESULT_PATH}?result=${outcome.reason}`;
  }
  return undefined;
}

/**
 * The result page of the callback: fixed text with the provider's label and ids escaped,
 * nothing from the provider's free-text error description, no script, no style, no link.
 * The callback URL carries the code: no referrer, never cached.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

const START_AGAIN = 'Nothing was stored. Start the connection again from the studio or with POST /secrets/oauth2/connections.';

function pageOf(outcome: CallbackOutcome): { status: 200 | 400 | 403 | 500 | 502; title: string; text: string[] } {
  const at = outcome.provider ? ` at ${outcome.provider}` : '';
  if (outcome.ok) {
    return {
      status: 200,
      title: 'Account connected',
      text: [
        `The ${outcome.provider} account is ${outcome.reconnected ? 'connected again' : 'connected'}: it is stored as the oauth2 secret ${outcome.secretId}${outcome.reconnected ? ', and the tools that use it work again' : ', which tools can use now'}.`,
        'You can close this window.',
      ],
    };
  }
  switch (outcome.reason) {
    case 'denied':
      return { status: 403, title: 'Access was not allowed', text: [`You did not allow access${at}.`, START_AGAIN] };
    case 'bad_state':
      return { status: 400, title: 'Unknown connection attempt', text: ['This address does not belong to a connection attempt (its state is missing or wrong).', START_AGAIN] };
    case 'used_state':
      return { status: 400, title: 'Already used', text: ['This connection attempt has already been completed; an address from the provider works once.', 'Nothing more was stored.'] };
    case 'expired':
      return { status: 400, title: 'The connection attempt expired', text: [`A connection attempt lasts ${CONNECTION_TTL_MS / 60_000} minutes.`, START_AGAIN] };
    case 'provider_error':
      return {
        status: 502,
        title: 'The provider refused',
        text: [`The provider${at} did not issue tokens${outcome.providerError ? ` (error ${outcome.providerError})` : ''}.`, 'Check the client id, client secret and the redirect URI registered there.', START_AGAIN],
      };
    case 'no_refresh_token':
      return {
        status: 502,
        title: 'No refresh token',
        text: [`The provider${at} issued no refresh token, so the access could not be kept fresh.`, "Ask for the provider's offline scope (offline_access, ...) or allow offline access in its consent.", START_AGAIN],
      };
    case 'secret_gone':
      return { status: 400, title: 'The secret was deleted', text: ['The secret this attempt was to reconnect was deleted meanwhile.', START_AGAIN] };
    case 'invalid_response':
      return { status: 502, title: 'Unusable answer', text: [`The provider${at} sent an answer that failed the checks (its ID token, issuer or tokens).`, START_AGAIN] };
    case 'interrupted':
      return { status: 500, title: 'Not finished', text: ['The connection could not be finished here.', START_AGAIN] };
    case 'wrong_browser':
      return {
        status: 403,
        title: 'Another browser',
        text: [
          'This connection was started in the studio in another browser (or this browser has since lost its cookie), so it can only finish there.',
          'Nothing was stored. Start the connection again from the studio, in the browser you consent in.',
        ],
      };
  }
}

function renderPage(title: string, text: string[]): string {
  const paragraphs = text.map((t) => `<p>${escapeHtml(t)}</p>`).join('\n');
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(title)} · mimic</title>\n</head>\n<body>\n<main>\n<h1>${escapeHtml(title)}</h1>\n${paragraphs}\n</main>\n</body>\n</html>\n`;
}

export function renderCallbackPage(outcome: CallbackOutcome): { status: 200 | 400 | 403 | 500 | 502; html: string } {
  const page = pageOf(outcome);
  return { status: page.status, html: renderPage(page.title, [...page.text, ...(outcome.connectionId ? [`Connection ${outcome.connectionId}`] : [])]) };
}

/** A bare GET (someone looking at the redirect URI): what it is for. */
const ABOUT_PAGE = renderPage('The OAuth redirect URI of mimic', [
  'Providers send people back here after they allowed access to an account; the connection attempt then finishes by itself.',
  'Register this exact address as the redirect URI of your OAuth client, and start a connection with POST /secrets/oauth2/connections.',
]);

const id = idParam('the connection id (oac_...)');

export function connectRoutes(deps: ConnectDeps): Route[] {
  return [
    {
      method: 'post', path: '/secrets/oauth2/connections', tag: 'Secrets',
      summary: 'Connect an account over OAuth 2.0: the authorization URL to send the person to (authorization code, PKCE S256, state, nonce)',
      description:
        'Give the provider\'s `issuer` (discovered) or its `authorization_url` and `token_url`, your client id and secret, and the scopes. ' +
        'Send the person to `authorization_url`; the provider returns them to `redirect_uri` (register exactly that URL), ' +
        'where the code is exchanged and the tokens stored as an oauth2 secret. Poll `GET /secrets/oauth2/connections/{id}` for the result. ' +
        'With `secret_id`, the new grant replaces that secret\'s (after its refresh token was revoked). The attempt expires after 10 minutes.',
      body: StartConnection, ok: { status: 201, schema: StartedConnection, description: 'the attempt, pending' },
      errors: ['BadRequestError', 'AuthorizationError', 'NotFoundError'],
      handler: async (c) => {
        const body = await jsonBody(c);
        if (body.return_to !== 'studio') return c.json(await startConnection(deps, c.get('user').id, body), 201);
        const secure = deps.redirectUri.startsWith('https:');
        const browser = bindingCookie(c, secure) ?? randomBytes(32).toString('base64url');
        const started = await startConnection(deps, c.get('user').id, body, browser);
        setBindingCookie(c, secure, browser);
        return c.json(started, 201);
      },
    },
    {
      method: 'get', path: '/secrets/oauth2/connections/{id}', tag: 'Secrets', params: [id],
      summary: 'An OAuth connect attempt: pending, connected (with its secret_id), or why nothing was stored',
      ok: { status: 200, schema: Connection, description: 'the attempt' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchConnection(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'get', path: CALLBACK_PATH, tag: 'Secrets', access: 'public', security: [],
      summary: "The OAuth redirect URI: the provider sends the person's browser here; answers an HTML page saying what was stored",
      description:
        'No API key: the `state` parameter names the attempt, once. A wrong, reused or expired state, a refused consent or a provider error store nothing. ' +
        'An attempt started with `return_to: studio` completes only in the browser holding its `mimic_oauth` cookie (else 403, nothing stored) and ends with a 303 to the studio\'s page for it.',
      params: [
        { name: 'state', in: 'query', description: 'the state mimic sent with the authorization request' },
        { name: 'code', in: 'query', description: 'the authorization code' },
        { name: 'error', in: 'query', description: 'the provider\'s error code (access_denied, ...)' },
        { name: 'iss', in: 'query', description: 'the issuer (RFC 9207), checked when the provider announces it' },
      ],
      ok: { status: 200, description: 'an HTML page: connected, or why nothing was stored (then 400, 403 or 502); a studio attempt: 303 to the studio', contentType: 'text/html' },
      handler: async (c) => {
        const q = c.req.query();
        if (q.state === undefined && q.code === undefined && q.error === undefined) return c.body(ABOUT_PAGE, 200, PAGE_HEADERS);
        const browser = bindingCookie(c, deps.redirectUri.startsWith('https:'));
        const outcome = await completeConnection(deps, { state: q.state, code: q.code, error: q.error, iss: q.iss }, browser);
        const back = studioReturn(outcome, browser !== undefined);
        if (back) return c.body(null, 303, { location: back, 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
        const page = renderCallbackPage(outcome);
        return c.body(page.html, page.status, PAGE_HEADERS);
      },
    },
  ];
}
