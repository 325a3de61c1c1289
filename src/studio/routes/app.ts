import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Route } from '../../platform/module.ts';
import type { StudioDeps, StudioEnv } from './env.ts';
import { studioHeaders } from './headers.ts';
import { pageRoutes } from './pages/index.ts';
import { ErrorPage } from './error-page.tsx';
import { loadSession } from './session.ts';
import { authRoutes } from './auth.tsx';

/** A browser page load wants HTML; a page's own fetch (the token call) reads a JsonError. */
const wantsHtml = (c: Context): boolean => (c.req.header('accept') ?? '').includes('text/html');

const TITLES: Record<number, string> = { 400: 'Bad request', 401: 'Sign in', 403: 'Not allowed', 404: 'Not found', 413: 'Too large', 429: 'Too many attempts' };

/**
 * The studio: a Hono app of its own under /studio, with its headers, its session and CSRF
 * middleware and an error page. The public app reaches it through three routes
 * (studioRoutes), so the OpenAPI document shows the studio as three operations.
 */
export function createStudioApp(deps: StudioDeps & { log: Logger }): Hono<StudioEnv> {
  // Not strict: /studio/ and /studio/keys/ are the pages /studio and /studio/keys.
  const root = new Hono<StudioEnv>({ strict: false });
  const app = root.basePath('/studio');
  app.use(studioHeaders());
  app.use(loadSession(deps));
  authRoutes(app, deps);
  pageRoutes(app, deps);
  // On the root: basePath's copy keeps its own handlers, and the root's are the ones that run.
  root.notFound((c) => render(c, new ApiError('NotFoundError', `There is no studio page at ${c.req.path}`)));
  root.onError((err, c) => render(c, err));

  function render(c: Context<StudioEnv>, err: Error): Response | Promise<Response> {
    let status = 500;
    let kind = 'InternalServerError';
    let description = 'Something went wrong on our side; try again.';
    if (err instanceof ApiError && err.status !== undefined && err.status < 500) {
      status = err.status;
      kind = err.kind;
      description = err.description;
    } else if (err instanceof HTTPException && err.status < 500) {
      status = err.status;
      kind = status === 413 ? 'PayloadTooLargeError' : 'BadRequestError';
      description = err.message || 'bad request';
    } else {
      deps.log.error('studio: unhandled error', { error: err.message, stack: err.stack });
    }
    if (!wantsHtml(c)) return c.json({ kind, description }, status as 400);
    return c.html(ErrorPage({ status, title: TITLES[status] ?? 'Error', description, session: c.get('session'), csrf: c.get('csrf') }), status as 400);
  }
  return root;
}

/** The studio's largest request body (a form). */
const STUDIO_BODY_LIMIT = 64 * 1024;

/** The three public routes that hand /studio over to the studio app. */
export function studioRoutes(studio: Hono<StudioEnv>): Route[] {
  const handler: Route['handler'] = (c) => {
    // /studio itself: the pages live under /studio/ (relative links resolve there).
    if (c.req.path === '/studio') return c.redirect('/studio/', 301);
    return studio.fetch(c.req.raw, c.env);
  };
  const common = {
    tag: 'Studio',
    access: 'public',
    security: [{ studioSession: [] }],
    bodyLimit: STUDIO_BODY_LIMIT,
    ok: { status: 200, description: 'an HTML page (or a redirect)', contentType: 'text/html' },
    handler,
  } as const;
  const path = { name: 'path', in: 'path', description: 'the studio page', required: true } as const;
  return [
    { ...common, method: 'get', path: '/studio', summary: 'The studio (the web app for people), its home page' },
    { ...common, method: 'get', path: '/studio/{path}', pattern: '/studio/*', summary: 'A studio page or asset', params: [path] },
    { ...common, method: 'post', path: '/studio/{path}', pattern: '/studio/*', summary: 'A studio form or action (CSRF-protected)', params: [path] },
  ];
}
