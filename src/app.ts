import { Hono } from 'hono';
import type { AppEnv, AuthUser } from './http/env.ts';
import { errorHandler, notFoundHandler } from './http/errors.ts';
import { requireAuth } from './http/auth.ts';
import { animationRoutes } from './http/routes/animations.ts';
import { buildOpenApi } from './http/openapi.ts';
import { renderDocsPage } from './http/docs-page.ts';
import { authUnlessPublic, bodyLimits, requestContext } from './http/middleware.ts';
import { COMPUTE_PREFIX, isComputeFilePath } from './http/routes/compute.ts';
import type { Logger } from './log.ts';
import type { AnimationDeps } from './animations/deps.ts';

export interface AppDeps {
  animations: AnimationDeps;
  verifyKey: (apiKey: string) => AuthUser | null;
  log: Logger;
  /** Routes served without an API key (signed media URLs; the compute worker protocol, which has its own auth). */
  publicRoutes: Hono<AppEnv>[];
  /** Further authenticated routes (webhook settings, ...). */
  privateRoutes: Hono<AppEnv>[];
  isReady: () => boolean;
}

const PUBLIC_PATHS = new Set(['/health', '/openapi.json', '/docs']);

/** Builds the HTTP app: request ids, logs, body limit, the error boundary, then the routes. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config } = deps.animations;
  const app = new Hono<AppEnv>();
  const openapi = buildOpenApi(deps.animations.schemas, config.publicUrl);
  const docsPage = renderDocsPage(openapi as Parameters<typeof renderDocsPage>[0]);

  app.use(requestContext(deps.log, config.logRequests));
  // Uploads may be as large as an image may be; every other body is small JSON. A worker's
  // result upload is streamed to disk under its own limit (config.fetch.maxVideoBytes).
  const jsonLimit = config.maxBodyBytes;
  const uploadLimit = config.fetch.maxImageBytes + 64 * 1024;
  app.use(bodyLimits((path) => (path === '/images' ? uploadLimit : isComputeFilePath(path) ? null : jsonLimit)));
  app.onError(errorHandler(deps.log));
  app.notFound(notFoundHandler);

  // Default deny: every route needs an API key except these few public ones. /compute/v1/
  // takes no API key: its routes demand a worker token (or a signed file URL) themselves.
  const auth = requireAuth(deps.verifyKey);
  const isPublic = (path: string) => PUBLIC_PATHS.has(path) || path.startsWith('/media/') || path.startsWith(COMPUTE_PREFIX);
  app.use(authUnlessPublic(isPublic, auth));

  app.get('/health', (c) => {
    if (!deps.isReady()) return c.json({ kind: 'ServiceUnavailableError', description: 'starting' }, 503);
    return c.json({ status: 'ok', version: '0.1.0' });
  });
  app.get('/openapi.json', (c) => c.json(openapi));
  app.get('/docs', (c) => c.html(docsPage));
  for (const r of deps.publicRoutes) app.route('/', r);

  app.route('/', animationRoutes(deps.animations));
  for (const r of deps.privateRoutes) app.route('/', r);
  return app;
}
