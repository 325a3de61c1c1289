import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';
import type { AppEnv, AuthUser } from './env.ts';
import { keysFromAuthorization } from '../users/api-keys.ts';
import { requestHeader, responseHeader } from './middleware.ts';

/** Authenticates `Authorization: Basic <API_KEY>` (and its RFC 7617 and Bearer forms). */
export function requireAuth(verify: (apiKey: string) => Promise<AuthUser | null>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    for (const key of keysFromAuthorization(requestHeader(c, 'authorization'))) {
      const user = await verify(key);
      if (user) {
        c.set('user', user);
        return next();
      }
    }
    // A page's own fetch (Sec-Fetch-Mode other than navigate) gets no challenge: a browser would
    // answer it with its login dialog over the page (and, headless, hang) instead of letting the
    // page read the 401.
    const mode = requestHeader(c, 'sec-fetch-mode');
    if (mode === undefined || mode === 'navigate') responseHeader(c, 'WWW-Authenticate', 'Basic realm="mimic"');
    throw new ApiError('AuthorizationError', 'Missing or invalid credentials: send Authorization: Basic <API_KEY>');
  };
}
