import { defineModule } from '../platform/module.ts';
import { defaultBackoff } from '../jobs/catalogue.ts';
import { animationSchemas } from './schemas.ts';
import type { AnimationDeps } from './deps.ts';
import { RENDER_JOB } from './deps.ts';
import { animationLifecycle } from './kind.ts';
import { renderAnimation, finishWithError, type RenderDeps } from './render.ts';
import { animationRoutes } from './routes.ts';

/** Still-photo animations: POST /animations, their render job, and their webhook. */
export const animationsModule = defineModule({
  name: 'animations',
  create(p) {
    const { config, stores, clock, newId, queue, media, backend, client, log } = p;
    const lifecycle = animationLifecycle(stores.resources, clock, media);
    const deps: AnimationDeps = { config, lifecycle, clock, newId, schemas: animationSchemas(config.storageScheme), queue, media, client };
    const render: RenderDeps = { ...deps, backend, client, log };
    return {
      deps,
      render,
      routes: animationRoutes(deps),
      jobs: [
        {
          kind: RENDER_JOB,
          handler: (job, ctx) => renderAnimation(render, job, ctx),
          maxAttempts: config.worker.maxAttempts,
          backoffMs: defaultBackoff,
          // A local render of the longest driver takes minutes; a remote one parks and waits outside this limit.
          timeLimitMs: 2 * 60 * 60 * 1000,
          onExhausted: (job) => finishWithError(render, job.resourceId, 'UnknownError', 'The animation could not be rendered after several attempts'),
        },
      ],
      resources: [lifecycle],
    };
  },
});
