import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';
import type { AppEnv, AuthUser } from './env.ts';
import { bearerTokenFromAuthorization, clientKeyFromAuthorization, keysFromAuthorization, type ClientKeyCredential } from '../platform/caller.ts';
import { requestHeader, responseHeader } from './middleware.ts';

/** Authorization headers whose key candidates are remembered; past this many, the memory starts over. */
const REMEMBERED_HEADERS = 10_000;
/** Longer headers (no form of a key needs this much) are parsed every time, so the memory stays small. */
const REMEMBERED_LENGTH = 256;

/**
 * Authenticates `Authorization: Basic <API_KEY>` (and its RFC 7617 and Bearer forms), then a
 * browser's client key (`Client-Key ...`; `clientKeyGate` then decides which routes it may
 * reach), then a bearer token (JWT). A client sends the same header on every request, so what it carries
 * (parsed by keysFromAuthorization: two regular expressions, and a base64 decode for the RFC
 * 7617 form) is remembered per header value; whether a key is valid is asked of `verify` every
 * time. The API-key path is the hot one and stays as it was: a token is looked at only when
 * the header carries no key candidate at all.
 */
export function requireAuth(
  verify: (apiKey: string) => Promise<AuthUser | null>,
  verifyToken?: (jws: string) => Promise<AuthUser | null>,
  verifyClientKey?: (credential: ClientKeyCredential) => Promise<AuthUser | null>,
): MiddlewareHandler<AppEnv> {
  const parsed = new Map<string, readonly string[]>();
  const keysOf = (header: string | undefined): readonly string[] => {
    if (!header) return [];
    if (header.length > REMEMBERED_LENGTH) return keysFromAuthorization(header);
    let keys = parsed.get(header);
    if (!keys) {
      keys = keysFromAuthorization(header);
      if (parsed.size >= REMEMBERED_HEADERS) parsed.clear();
      parsed.set(header, keys);
    }
    return keys;
  };
  return async (c, next) => {
    const header = requestHeader(c, 'authorization');
    const keys = keysOf(header);
    for (const key of keys) {
      const user = await verify(key);
      if (user) {
        c.set('user', user);
        return next();
      }
    }
    // A browser's client key, only when the header names that scheme (the hot path above never parses it).
    const credential = keys.length === 0 && verifyClientKey ? clientKeyFromAuthorization(header) : undefined;
    if (credential !== undefined) {
      const user = credential && (await verifyClientKey!(credential));
      if (user) {
        c.set('user', user);
        return next();
      }
      throw new ApiError(
        'AuthorizationError',
        credential ? 'The client key is invalid or revoked' : 'Malformed client key: send Authorization: Client-Key <client key>.<external id>_<connection id>',
      );
    }
    const jws = keys.length === 0 && verifyToken ? bearerTokenFromAuthorization(header) : undefined;
    if (jws !== undefined) {
      const user = await verifyToken!(jws);
      if (user) {
        c.set('user', user);
        return next();
      }
    }
    // A bad token says so (RFC 6750): no browser shows a dialog for a Bearer challenge.
    if (jws !== undefined) responseHeader(c, 'WWW-Authenticate', 'Bearer error="invalid_token"');
    // A page's own fetch (Sec-Fetch-Mode other than navigate) gets no Basic challenge: a browser
    // would answer it with its login dialog over the page (and, headless, hang) instead of
    // letting the page read the 401.
    else {
      const mode = requestHeader(c, 'sec-fetch-mode');
      if (mode === undefined || mode === 'navigate') responseHeader(c, 'WWW-Authenticate', 'Basic realm="mimic"');
    }
    throw new ApiError(
      'AuthorizationError',
      jws !== undefined ? 'The bearer token is invalid, expired or revoked: get a new one' : 'Missing or invalid credentials: send Authorization: Basic <API_KEY>',
    );
  };
}

/**
 * Default deny for browsers' client keys, after authentication: a client-key caller passes
 * only a route that opted in (`Route.clientKey`), for the agent its path names, with an
 * `Origin` among the key's allowed origins. Every other caller passes untouched.
 */
export function clientKeyGate(optIn: { agentParam: string } | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const client = c.get('user')?.client;
    if (!client) return next();
    if (!optIn) {
      throw new ApiError('PermissionError', "A client key reaches only its agent's runtime, streams, chat and notifications: this route needs an API key or a bearer token");
    }
    if (c.req.param(optIn.agentParam) !== client.agentId) throw new ApiError('PermissionError', 'This client key belongs to another agent');
    const origin = requestHeader(c, 'origin');
    if (origin === undefined) throw new ApiError('PermissionError', 'A client key is accepted only from a browser page on one of its allowed origins: the request has no Origin header');
    if (!client.origins.includes(origin)) throw new ApiError('PermissionError', `A client key is accepted only from its allowed origins, and ${origin.slice(0, 200)} is not one of them`);
    return next();
  };
}
