import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv, AuthUser } from './http/env.ts';
import { errorHandler, notFoundHandler } from './http/errors.ts';
import { clientKeyGate, requireAuth } from './http/auth.ts';
import { createMemoryRateLimiter, rateLimitPerKey, type RateLimiters } from './http/rate-limit/index.ts';
import { buildOpenApi } from './http/openapi.ts';
import { frontDoorRoutes } from './http/front-door/index.ts';
import { mountRoutes } from './http/mount.ts';
import { byPathShape } from './http/route-order.ts';
import { GroupedRouter } from './http/router.ts';
import { bodyLimit, closeIfBodyLeft, requestContext } from './http/middleware.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Route } from './platform/module.ts';
import type { ClientKeyCredential } from './platform/caller.ts';
import type { ReadinessReport } from './platform/readiness.ts';

export interface AppDeps {
  config: Pick<Config, 'publicUrl' | 'maxBodyBytes' | 'logRequests' | 'rateLimit'> & Partial<Pick<Config, 'corsOrigins' | 'clientKeyRateLimit'>>;
  /** Every capability's routes (src/modules.ts); each declares its own access and body limit. */
  routes: readonly Route[];
  verifyKey: (apiKey: string) => Promise<AuthUser | null>;
  /** Bearer tokens (JWT), tried when a request carries no API key; absent: none verifies. */
  verifyToken?: (jws: string) => Promise<AuthUser | null>;
  /** Browsers' client keys (`Authorization: Client-Key ...`), only on routes that opt in; absent: none verifies. */
  verifyClientKey?: (credential: ClientKeyCredential) => Promise<AuthUser | null>;
  log: Logger;
  health: HealthSource;
  /** The request counters (src/http/rate-limit/): in PostgreSQL when the stores are (every process shares them); absent: in memory. */
  rateLimiters?: RateLimiters;
}

/** Where the process is in its life, for the health routes (src/server.ts moves it). */
export type ServicePhase = 'starting' | 'serving' | 'stopping';

export interface HealthSource {
  phase: () => ServicePhase;
  /** The named readiness checks (src/platform/readiness.ts). */
  ready: () => Promise<ReadinessReport>;
}

const VERSION = '0.1.0';

/** The 503 of a process that is not serving (yet, or any more). */
const notServing = (phase: ServicePhase) => ({ kind: 'ServiceUnavailableError', description: phase === 'starting' ? 'starting' : 'shutting down' });

/**
 * The health routes (docs/deploy.md): `/health/live` answers while the process answers;
 * `/health/ready` while it serves and every readiness check passes (the database answers, its
 * migrations are applied, what modules add), else 503 naming the checks and their status;
 * `/health` is the first answer it ever gave: serving or not, without running the checks.
 */
function healthRoutes(health: HealthSource): Route[] {
  const common = { tag: 'Service', access: 'public', security: [] } as const;
  return [
    {
      ...common, method: 'get', path: '/health', summary: 'Serving: started and not shutting down (the checks of /health/ready are not run)',
      ok: { status: 200, description: 'serving' }, errors: ['ServiceUnavailableError'],
      handler: (c) => {
        const phase = health.phase();
        return phase === 'serving' ? c.json({ status: 'ok', version: VERSION }) : c.json(notServing(phase), 503);
      },
    },
    {
      ...common, method: 'get', path: '/health/live', summary: 'Liveness: the process answers (also while it starts or drains)',
      ok: { status: 200, description: 'alive' },
      handler: (c) => c.json({ status: 'ok', version: VERSION }),
    },
    {
      ...common, method: 'get', path: '/health/ready', summary: 'Readiness: serving, the database reachable with its migrations applied, and every check a module adds',
      ok: { status: 200, description: 'ready: {status, checks}' }, errors: ['ServiceUnavailableError'],
      handler: async (c) => {
        const phase = health.phase();
        if (phase !== 'serving') return c.json(notServing(phase), 503);
        const { ready, checks } = await health.ready();
        if (ready) return c.json({ status: 'ok', checks });
        const failing = Object.entries(checks).filter(([, s]) => s !== 'ok').map(([name, s]) => `${name} (${s})`);
        return c.json({ kind: 'ServiceUnavailableError', description: `not ready: ${failing.join(', ')}`, details: { checks } }, 503);
      },
    },
  ];
}

/** The service's own routes: health and the API's description. */
function serviceRoutes(deps: AppDeps, openapi: () => unknown): Route[] {
  const common = { tag: 'Service', access: 'public', security: [] } as const;
  return [
    ...healthRoutes(deps.health),
    {
      ...common, method: 'get', path: '/openapi.json', summary: 'This OpenAPI 3.1 document',
      ok: { status: 200, description: 'the document' },
      handler: (c) => c.json(openapi()),
    },
    ...frontDoorRoutes(deps.config.publicUrl, VERSION),
  ];
}

/**
 * Browser pages on the configured origins may call the API (MIMIC_CORS_ORIGINS): preflights
 * are answered before any key check (a browser sends none), and every answer, errors too,
 * says which origin may read it. Keys travel in `Authorization`, never in cookies, so no
 * credentials mode is offered.
 */
function corsPolicy(origins: readonly string[] | 'reflect'): MiddlewareHandler<AppEnv> {
  return cors({
    origin: origins === 'reflect' ? (origin) => origin : origins[0] === '*' ? '*' : [...origins],
    allowMethods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
    // The tus headers of resumable video uploads (docs/videos.md) too.
    allowHeaders: ['Authorization', 'Content-Type', 'Tus-Resumable', 'Upload-Length', 'Upload-Offset', 'Upload-Metadata'],
    exposeHeaders: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'WWW-Authenticate', 'X-Request-Id', 'Location', 'Tus-Resumable', 'Upload-Offset', 'Upload-Length', 'Upload-Expires'],
    maxAge: 600,
  });
}

/**
 * The routes a browser's client key may call (Route.clientKey) answer any page's origin, its
 * preflight included: a preflight carries no credential, so which origins a key allows is
 * known only on the request itself, where `clientKeyGate` refuses every origin the key does
 * not list (403). Credential-less as everywhere: a page still needs the key to get an answer.
 * Every other path keeps MIMIC_CORS_ORIGINS.
 */
function corsPolicies(origins: readonly string[], routes: readonly Route[]): MiddlewareHandler<AppEnv> | undefined {
  const configured = origins.length > 0 ? corsPolicy(origins) : undefined;
  const opted = routes
    .filter((r) => r.clientKey)
    .map((r) => new RegExp(`^${(r.pattern ?? r.path).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`));
  if (opted.length === 0) return configured;
  const reflecting = corsPolicy('reflect');
  return (c, next) => {
    if (opted.some((re) => re.test(c.req.path))) return reflecting(c, next);
    return configured ? configured(c, next) : next();
  };
}

/**
 * Builds the HTTP app: request ids and logs, the error boundary, then every route with the
 * middleware it declares (a body limit, the API-key check), chosen once here, not per request.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config } = deps;
  const app = new Hono<AppEnv>({ router: new GroupedRouter() });
  let openapi: unknown;
  const routes = [...serviceRoutes(deps, () => openapi), ...deps.routes];
  openapi = buildOpenApi(routes, config.publicUrl);

  const onError = errorHandler(deps.log);
  app.use(requestContext(deps.log, config.logRequests));
  app.onError(onError);
  const corsMiddleware = corsPolicies(config.corsOrigins ?? [], routes);
  if (corsMiddleware) app.use(corsMiddleware);

  const limits = new Map<number, MiddlewareHandler<AppEnv>>();
  const limit = (maxSize: number) => {
    let m = limits.get(maxSize);
    if (!m) limits.set(maxSize, (m = bodyLimit(maxSize)));
    return m;
  };
  // Every API-key route counts against the key that authenticated it.
  const auth = requireAuth(deps.verifyKey, deps.verifyToken, deps.verifyClientKey);
  // Client keys: refused on every route that did not opt in (default deny).
  const denyClientKeys = clientKeyGate(undefined);
  const limiter = deps.rateLimiters ?? createMemoryRateLimiter;
  const rateLimit = rateLimitPerKey(
    config.rateLimit && limiter(config.rateLimit, 'api-key'),
    config.clientKeyRateLimit ? limiter(config.clientKeyRateLimit, 'client-key') : null,
  );
  // Every method that can carry a body gets the route's limit, DELETE included (a stream's
  // DELETE reads {session_id}); GET has none (Hono answers HEAD with the GET route).
  // Mounted by path shape (literal segments before parameters): the modules' order never decides which route answers.
  mountRoutes(app, byPathShape(routes), (route) => [
    ...(route.method !== 'get' && route.bodyLimit !== 'stream' ? [limit(route.bodyLimit ?? config.maxBodyBytes)] : []),
    ...(route.access === 'public' ? [] : [auth, rateLimit, route.clientKey ? clientKeyGate(route.clientKey) : denyClientKeys]),
  ]);
  // An unknown path is behind the key too: without one it answers 401, not whether it exists.
  // Its refusal is rendered here: Hono calls notFound outside the middleware's error handling,
  // so a throw would skip the request log line (an unknown path without a key went unlogged).
  app.notFound(async (c) => {
    try {
      await auth(c, async () => {
        await denyClientKeys(c, async () => {});
      });
    } catch (err) {
      return onError(err as Error, c);
    }
    const res = notFoundHandler(c);
    closeIfBodyLeft(c, res.status);
    return res;
  });
  return app;
}
