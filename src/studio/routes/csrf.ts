import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';
import type { StudioDeps, StudioEnv } from './env.ts';

/**
 * Every studio POST must come from a studio page: `Sec-Fetch-Site: same-origin` (set by the
 * browser, which no page can forge, and decisive when present: under a no-referrer policy
 * Chromium sends `Origin: null` on a same-origin form), or else an `Origin` equal to the public
 * URL's (browsers send no Sec-Fetch-* to plain http origins other than localhost). A form on
 * another site (login CSRF included) is refused; a client that is not a browser sends neither
 * header and has no ambient cookie to abuse.
 */
export function requireSameOrigin(deps: Pick<StudioDeps, 'publicUrl'>): MiddlewareHandler<StudioEnv> {
  const origin = new URL(deps.publicUrl).origin;
  return async (c, next) => {
    const site = c.req.header('sec-fetch-site');
    const from = c.req.header('origin');
    const sameOrigin = site !== undefined ? site === 'same-origin' : from === undefined || from === origin;
    if (!sameOrigin) throw new ApiError('PermissionError', 'This form may only be sent from a studio page (cross-site request refused)');
    return next();
  };
}

/**
 * The session's CSRF token, in the `X-CSRF-Token` header (a page's fetch) or the `_csrf` form
 * field, on every state-changing request but sign-in (which has no session yet: the
 * same-origin check covers it).
 */
export function requireCsrf(deps: Pick<StudioDeps, 'accounts'>): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    const session = c.get('session');
    let token = c.req.header('x-csrf-token');
    if (token === undefined && (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) {
      const field = (await c.req.parseBody())._csrf;
      token = typeof field === 'string' ? field : undefined;
    }
    if (!session || !deps.accounts.checkCsrf(session, token)) throw new ApiError('PermissionError', 'Missing or wrong CSRF token: reload the page and try again');
    return next();
  };
}
