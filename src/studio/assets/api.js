// The studio's one way to the API. A page calls the public API as any client does, with a
// short-lived bearer token that POST /studio/token mints for this session (the session
// cookie, plus the page's CSRF token from <meta name="csrf-token">). The token lives in this
// module's memory only, never in web storage or a cookie, and is renewed shortly before it
// expires. Plain ES module, no build step (docs/studio.md).

/** Renew this long before the token expires (or at half its life, when that is shorter). */
const RENEW_BEFORE_MS = 60_000;

let token;
let renewAt = 0;
let minting;

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

/** The session is over (signed out, revoked, expired): sign in again, then come back here. */
function signInAgain() {
  const next = location.pathname + location.search;
  location.assign(`/studio/sign-in?next=${encodeURIComponent(next)}`);
}

async function mint() {
  const res = await fetch('/studio/token', {
    method: 'POST',
    headers: { 'x-csrf-token': csrfToken(), accept: 'application/json' },
    credentials: 'same-origin',
    redirect: 'manual',
  });
  if (res.status === 401 || res.type === 'opaqueredirect') {
    signInAgain();
    throw new Error('The session has ended: sign in again.');
  }
  const body = await res.json().catch(() => null);
  if (!res.ok || !body?.access_token) throw new Error(body?.description ?? `The studio could not get a token (${res.status}).`);
  const lifeMs = body.expires_in * 1000;
  token = body.access_token;
  renewAt = Date.now() + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 2);
  return token;
}

/** A bearer token for this session: the one in memory while it has time left, else a new one (one request at a time). */
export function getToken() {
  if (token && Date.now() < renewAt) return Promise.resolve(token);
  minting ??= mint().finally(() => {
    minting = undefined;
  });
  return minting;
}

/** Forgets the token in memory (the API refused it: the session was revoked, say); the next call mints another. */
export function forgetToken() {
  token = undefined;
}

async function send(method, path, body) {
  const headers = { authorization: `Bearer ${await getToken()}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}

/**
 * One API call: `{status, body}` (the JSON body, or null). A 401 means the token was
 * refused (the session revoked meanwhile, say): a new token is asked for once.
 */
export async function api(method, path, body) {
  let res = await send(method, path, body);
  if (res.status === 401) {
    forgetToken();
    res = await send(method, path, body);
  }
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed };
}

/** Says what went wrong in `el`, as text: an API error's description, or the status. */
export function showError(el, res) {
  el.textContent = typeof res?.body?.description === 'string' ? res.body.description : `The service answered ${res?.status ?? 'nothing'}.`;
}
