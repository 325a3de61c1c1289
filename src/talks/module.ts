import { defineModule } from '../platform/module.ts';
import { talkSchemas } from './schemas.ts';
import { createPendingVideos } from '../speaking/pending.ts';
import { deriveKey } from '../keys.ts';
import { talks, type TalkDeps } from './kind.ts';
import { presentTalk } from './present.ts';
import { renderTalk, type TalkRenderDeps } from './render.ts';
import { talkRoutes } from './routes.ts';
import { talkStreamVariant } from './streams.ts';
import { VOICES } from '../voices/contract.ts';
import { STREAMS } from '../streams/contract.ts';

/**
 * Talks: POST /talks (a photo speaking a script), its render job (`talk.render`, a compute task
 * kind, so a GPU worker may take it) and its webhook. The speaking engine is src/speaking/.
 */
export const talksModule = defineModule({
  name: 'talks',
  uses: [VOICES, STREAMS],
  create(p, _settings, services) {
    const { config, clock, newId, queue, media, backend, client, log } = p;
    const pending = createPendingVideos({
      dataDir: config.dataDir, publicUrl: config.publicUrl, key: deriveKey(config.masterKey, 'talk-pending-url'), ttlSeconds: config.signedUrlTtlSeconds, clock,
      owner: { path: 'talks', idPrefix: 'tlk', label: 'talk' },
    });
    const lifecycle = talks.on(p, { present: (t) => presentTalk(t, media, pending), onRemove: (t) => pending.remove(t.id) });
    const deps: TalkDeps = { config, lifecycle, clock, newId, queue, media, schemas: talkSchemas(config.storageScheme), voices: services.find(VOICES), pending, client };
    const render: TalkRenderDeps = { ...deps, backend, client, log };
    return {
      deps,
      routes: [...talkRoutes(deps), ...(services.find(STREAMS)?.streamRoutes(talkStreamVariant(deps)) ?? [])],
      jobs: [lifecycle.job((job, ctx) => renderTalk(render, job, ctx))],
      resources: [lifecycle],
    };
  },
});
