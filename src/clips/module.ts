import { defineModule } from '../platform/module.ts';
import { defaultBackoff } from '../jobs/catalogue.ts';
import { clipSchemas } from '../schemas/clips.ts';
import { createPresenterCatalogue } from '../presenters/catalogue.ts';
import { CLIP_JOB, type ClipDeps } from './deps.ts';
import { clipLifecycle } from './kind.ts';
import { renderClip, type RenderDeps } from './render.ts';
import { clipRoutes } from './routes.ts';
import { clipStreamVariant } from './streams.ts';
import { createPendingVideos } from '../speaking/pending.ts';
import { deriveKey } from '../keys.ts';
import { PREVIEW_JOB, presentersWithoutPreview, renderPreview } from './preview.ts';

/**
 * Clips: POST /clips (a presenter speaking a script), its render job and its webhook. The
 * voices come from the platform (`Platform.voices`), the presenters from src/presenters/.
 */
export const clipsModule = defineModule({
  name: 'clips',
  create(p) {
    const { config, stores, clock, newId, queue, media, backend, client, log } = p;
    const pending = createPendingVideos({ dataDir: config.dataDir, publicUrl: config.publicUrl, key: deriveKey(config.masterKey, 'clip-pending-url'), ttlSeconds: config.signedUrlTtlSeconds, clock, owner: { path: 'clips', idPrefix: 'clp', label: 'clip' } });
    const lifecycle = clipLifecycle(stores.resources, clock, media, pending);
    const deps: ClipDeps = {
      config, lifecycle, clock, newId, queue, media,
      schemas: clipSchemas(config.storageScheme),
      presenters: p.presenters ?? createPresenterCatalogue({ media }),
      voices: p.voices,
      pending,
      client,
    };
    const render: RenderDeps = { ...deps, backend, client, log };
    return {
      deps,
      render,
      routes: [...clipRoutes(deps), ...(p.streams?.streamRoutes(clipStreamVariant(deps)) ?? [])],
      jobs: [
        {
          kind: CLIP_JOB,
          handler: (job, ctx) => renderClip(render, job, ctx),
          maxAttempts: config.worker.maxAttempts,
          backoffMs: defaultBackoff,
          timeLimitMs: 2 * 60 * 60 * 1000,
          onExhausted: async (job) => {
            await lifecycle.fail(job.resourceId, 'UnknownError', 'The clip could not be rendered after several attempts');
          },
        },
        {
          kind: PREVIEW_JOB,
          handler: (job, ctx) => renderPreview(render, job, ctx),
          maxAttempts: 3,
          backoffMs: defaultBackoff,
          timeLimitMs: 30 * 60 * 1000,
          onExhausted: (job, reason) => log.warn('talking preview not rendered', { presenter_id: job.resourceId, reason }),
        },
      ],
      resources: [lifecycle],
      /** Queues the talking previews the built-in presenters lack (rendered once, then kept in the media store). */
      start() {
        if (!p.voices) return;
        for (const presenter of presentersWithoutPreview(deps)) {
          // At most one preview job per presenter: one left from an earlier start is replaced.
          queue.cancelFor(presenter.id);
          queue.enqueue({ kind: PREVIEW_JOB, resourceId: presenter.id, userId: presenter.owner, maxAttempts: 3 });
        }
      },
    };
  },
});
