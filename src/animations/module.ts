import { defineModule } from '../platform/module.ts';
import { animationSchemas } from './schemas.ts';
import type { AnimationDeps } from './deps.ts';
import { animations } from './kind.ts';
import { presentAnimation } from './present.ts';
import { renderAnimation, type RenderDeps } from './render.ts';
import { animationRoutes } from './routes.ts';

/** Still-photo animations: POST /animations, their render job, and their webhook. */
export const animationsModule = defineModule({
  name: 'animations',
  create(p) {
    const { config, clock, newId, queue, media, backend, client, log } = p;
    const lifecycle = animations.on(p, { present: (a) => presentAnimation(a, media) });
    const deps: AnimationDeps = { config, lifecycle, clock, newId, schemas: animationSchemas(config.storageScheme), queue, media, client };
    const render: RenderDeps = { ...deps, backend, client, log };
    return {
      deps,
      render,
      routes: animationRoutes(deps),
      jobs: [lifecycle.job((job, ctx) => renderAnimation(render, job, ctx))],
      resources: [lifecycle],
    };
  },
});
