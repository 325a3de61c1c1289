import { defineModule } from '../platform/module.ts';
import { defaultBackoff } from '../jobs/catalogue.ts';
import { talkSchemas } from '../schemas/talks.ts';
import { createPendingVideos } from '../speaking/pending.ts';
import { deriveKey } from '../keys.ts';
import { TALK_JOB, talkLifecycle, type TalkDeps } from './kind.ts';
import { renderTalk, type TalkRenderDeps } from './render.ts';
import { talkRoutes } from './routes.ts';
import { talkStreamVariant } from './streams.ts';

/**
 * Talks: POST /talks (a photo speaking a script), its render job (`talk.render`, a compute task
 * kind, so a GPU worker may take it) and its webhook. The speaking engine is src/speaking/.
 */
export const talksModule = defineModule({
  name: 'talks',
  create(p) {
    const { config, stores, clock, newId, queue, media, backend, client, log } = p;
    const pending = createPendingVideos({
      dataDir: config.dataDir, publicUrl: config.publicUrl, key: deriveKey(config.masterKey, 'talk-pending-url'), ttlSeconds: config.signedUrlTtlSeconds, clock,
      owner: { path: 'talks', idPrefix: 'tlk', label: 'talk' },
    });
    const lifecycle = talkLifecycle(stores.resources, clock, media, pending);
    const deps: TalkDeps = { config, lifecycle, clock, newId, queue, media, schemas: talkSchemas(config.storageScheme), voices: p.voices, pending, client };
    const render: TalkRenderDeps = { ...deps, backend, client, log };
    return {
      deps,
      routes: [...talkRoutes(deps), ...(p.streams?.streamRoutes(talkStreamVariant(deps)) ?? [])],
      jobs: [
        {
          kind: TALK_JOB,
          handler: (job, ctx) => renderTalk(render, job, ctx),
          maxAttempts: config.worker.maxAttempts,
          backoffMs: defaultBackoff,
          timeLimitMs: 2 * 60 * 60 * 1000,
          onExhausted: async (job) => {
            await lifecycle.fail(job.resourceId, 'UnknownError', 'The talk could not be rendered after several attempts');
          },
        },
      ],
      resources: [lifecycle],
    };
  },
});
