import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { StudioDeps, StudioEnv } from './env.ts';

/** The session cookie's name over http; over https it is `__Host-mimic_studio` (Secure, Path=/, no Domain). */
export const COOKIE = 'mimic_studio';

/** Secure and `__Host-` follow the public URL's scheme, not the request's (a proxy may end TLS in front). */
const secureOf = (publicUrl: string): boolean => publicUrl.startsWith('https:');

export function readSessionCookie(c: Context, deps: Pick<StudioDeps, 'publicUrl'>): string | undefined {
  return secureOf(deps.publicUrl) ? getCookie(c, COOKIE, 'host') : getCookie(c, COOKIE);
}

/** HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over https; lives as long as the session may. */
export function setSessionCookie(c: Context, deps: Pick<StudioDeps, 'publicUrl'>, token: string, maxAgeSeconds: number): void {
  const options = { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: maxAgeSeconds } as const;
  if (secureOf(deps.publicUrl)) setCookie(c, COOKIE, token, { ...options, secure: true, prefix: 'host' });
  else setCookie(c, COOKIE, token, options);
}

export function clearSessionCookie(c: Context, deps: Pick<StudioDeps, 'publicUrl'>): void {
  if (secureOf(deps.publicUrl)) deleteCookie(c, COOKIE, { path: '/', secure: true, httpOnly: true, sameSite: 'Lax', prefix: 'host' });
  else deleteCookie(c, COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax' });
}

/** The session the cookie names, when it is live: set as `session` and `csrf`. Never refuses. */
export function loadSession(deps: StudioDeps): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    const token = readSessionCookie(c, deps);
    const session = token ? await deps.accounts.sessionOf(token) : null;
    if (session) {
      c.set('session', session);
      c.set('csrf', deps.accounts.csrfToken(session));
    }
    return next();
  };
}

/** A studio path to come back to after signing in: same-origin, under /studio, nothing else. */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/studio') || next.startsWith('//') || /[\\\s]/.test(next)) return '/studio/';
  return next;
}

/** Pages for signed-in people: without a live session, 303 to the sign-in page, which comes back here after. */
export function requireSession(): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    if (c.get('session')) return next();
    const url = new URL(c.req.url);
    return c.redirect(`/studio/sign-in?next=${encodeURIComponent(safeNext(url.pathname + url.search))}`, 303);
  };
}
