import type { Hono } from 'hono';
import type { StudioDeps, StudioEnv } from '../env.ts';

/** Mounts the studio's signed-in pages on the sub-app (engineer B's pages go here). */
export function pageRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  void app;
  void deps;
}
