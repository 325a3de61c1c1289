import type { MiddlewareHandler } from 'hono';
import type { StudioEnv } from './env.ts';

/**
 * The studio's content security policy: only mimic's own scripts, styles and fonts; no inline
 * script or style; no framing; Trusted Types so that an HTML sink in a script throws.
 */
export const STUDIO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Headers on every studio answer (pages, assets, errors). */
export const STUDIO_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': STUDIO_CSP,
  // Invite and OAuth links carry tokens in their queries: never sent on as a Referer.
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(self), microphone=(self)',
});

/** Sets the studio's headers; pages are `no-store` unless the handler chose a cache policy (hashed assets: immutable). */
export function studioHeaders(): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(STUDIO_HEADERS)) c.res.headers.set(name, value);
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  };
}
