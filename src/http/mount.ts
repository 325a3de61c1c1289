import type { Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import type { Route } from '../platform/module.ts';

/** The router's pattern of a route: its own, or its OpenAPI path with `{name}` as `:name`. */
export const patternOf = (route: Route): string => route.pattern ?? route.path.replace(/\{(\w+)\}/g, ':$1');

/** Mounts each route with the middleware `chainFor` picks for it (chosen once, at mount time). */
export function mountRoutes(app: Hono<AppEnv>, routes: readonly Route[], chainFor: (route: Route) => MiddlewareHandler<AppEnv>[] = () => []): Hono<AppEnv> {
  for (const route of routes) app.on([route.method.toUpperCase()], [patternOf(route)], ...(chainFor(route) as []), route.handler);
  return app;
}
