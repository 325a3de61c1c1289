import { defineModule } from '../platform/module.ts';
import { defaultBackoff } from '../jobs/catalogue.ts';
import { clipSchemas } from './schemas.ts';
import { PRESENTERS } from '../presenters/contract.ts';
import { VOICES } from '../voices/contract.ts';
import { STREAMS } from '../streams/contract.ts';
import type { ClipDeps } from './deps.ts';
import { clips } from './kind.ts';
import { presentClip } from './present.ts';
import { renderClip, type RenderDeps } from './render.ts';
import { clipRoutes } from './routes.ts';
import { clipStreamVariant } from './streams.ts';
import { createPendingVideos } from '../speaking/pending.ts';
import { deriveKey } from '../keys.ts';
import { presentersWithoutPreview, previewMaker, renderPreview } from './preview.ts';
import { PREVIEW_JOB } from './contract.ts';

/**
 * Clips: POST /clips (a presenter speaking a script), its render job and its webhook. It
 * speaks with the presenters' catalogue (`PRESENTERS`) and the voices (`VOICES`: without
 * them, text scripts answer 503), and adds its stream routes when streams are here.
 */
export const clipsModule = defineModule({
  name: 'clips',
  needs: [PRESENTERS],
  uses: [VOICES, STREAMS],
  create(p, _settings, services) {
    const voices = services.find(VOICES);
    const streams = services.find(STREAMS);
    const { config, clock, newId, queue, media, backend, client, log } = p;
    const pending = createPendingVideos({ dataDir: config.dataDir, publicUrl: config.publicUrl, key: deriveKey(config.masterKey, 'clip-pending-url'), ttlSeconds: config.signedUrlTtlSeconds, clock, owner: { path: 'clips', idPrefix: 'clp', label: 'clip' } });
    const lifecycle = clips.on(p, { present: (c) => presentClip(c, media, pending), onRemove: (c) => pending.remove(c.id) });
    const deps: ClipDeps = {
      config, lifecycle, clock, newId, queue, media,
      schemas: clipSchemas(config.storageScheme),
      presenters: services.get(PRESENTERS),
      voices,
      pending,
      client,
    };
    const render: RenderDeps = { ...deps, backend, client, log };
    // A talking preview's URL is listed before it is rendered: fetching it early waits for it.
    const maker = previewMaker(deps);
    media.whenMissing(maker.matches, maker.make);
    return {
      deps,
      render,
      routes: [...clipRoutes(deps), ...(streams?.streamRoutes(clipStreamVariant(deps)) ?? [])],
      jobs: [
        lifecycle.job((job, ctx) => renderClip(render, job, ctx)),
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
        if (!voices) return;
        // The store answers asynchronously (a bucket, a database): the service's start does not wait
        // for it (the promise is for a caller that must: a test). At most one preview job per
        // presenter: one left from an earlier start (or queued by a fetch) is kept.
        return presentersWithoutPreview(deps)
          .then((presenters) => Promise.all(presenters.map((presenter) => queue.enqueueOnce({ kind: PREVIEW_JOB, resourceId: presenter.id, userId: presenter.owner, maxAttempts: 3 }))))
          .then(() => {})
          .catch((err: unknown) => log.warn('talking previews not queued', { error: err instanceof Error ? err.message : String(err) }));
      },
    };
  },
});
