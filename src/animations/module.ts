import { defineModule } from '../platform/module.ts';
import { animationSchemas } from '../schemas/animations.ts';
import { enqueueWebhook } from '../webhooks/index.ts';
import type { AnimationDeps } from './deps.ts';
import { RENDER_JOB } from './deps.ts';
import { renderAnimation, finishWithError, type RenderDeps } from './render.ts';
import { presentAnimation } from './present.ts';
import { getAnimationById } from './store.ts';
import { animationRoutes } from './routes.ts';

/** Still-photo animations: POST /animations, their render job, and their webhook. */
export const animationsModule = defineModule({
  name: 'animations',
  create(p) {
    const { config, store, clock, newId, queue, media, backend, client, log } = p;
    const deps: AnimationDeps = { config, store, clock, newId, schemas: animationSchemas(config.storageScheme), queue, media };
    const onFinished: RenderDeps['onFinished'] = (row) => {
      const req = JSON.parse(row.request) as { webhook?: string };
      if (!req.webhook) return;
      enqueueWebhook(store.db, { userId: row.userId, event: `animation.${row.status}`, resourceId: row.id, url: req.webhook, now: clock.now() });
    };
    const render: RenderDeps = { ...deps, backend, client, log, onFinished };
    return {
      deps,
      render,
      routes: animationRoutes(deps),
      jobs: [
        {
          kind: RENDER_JOB,
          handler: (job, ctx) => renderAnimation(render, job, ctx),
          onExhausted: (job) => finishWithError(render, job.resourceId, 'UnknownError', 'The animation could not be rendered after several attempts'),
        },
      ],
      resources: [
        {
          name: 'animation',
          webhookBody: async (id) => {
            const row = getAnimationById(store, id);
            return row ? presentAnimation(row, media) : null;
          },
        },
      ],
    };
  },
});
