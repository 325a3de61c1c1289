import { join } from 'node:path';
import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { VOICES } from '../voices/contract.ts';
import { USERS } from '../users/contract.ts';
import { STREAMS } from './contract.ts';
import type { StreamHub } from './interface.ts';
import { createStreamService } from './hub.ts';
import { streamRoutes } from './routes.ts';
import { streamSettings } from './settings.ts';

/**
 * Live streams (docs/streams.md): WebRTC from the server (werift), a face rendered by the
 * platform's `StreamRenderer`, speech from the voices. It has no routes of its own: talks,
 * clips and agents add theirs with `STREAMS`' `streamRoutes`, and agent chat speaks on an
 * agent's stream with its `speaker`.
 */
export const streamsModule = defineModule({
  name: 'streams',
  config: streamSettings,
  needs: [USERS],
  uses: [VOICES],
  provides: [STREAMS],
  create(p, settings, services) {
    const service = createStreamService({
      settings,
      renderer: p.streamRenderer,
      voices: services.find(VOICES),
      users: services.get(USERS),
      input: { client: p.client, media: p.media, config: p.config },
      workRoot: join(p.config.dataDir, 'streams'),
      clock: p.clock,
      newId: p.newId,
      log: p.log,
    });
    const hub: StreamHub = {
      streamRoutes: (variant) => streamRoutes(service, variant),
      speaker: (userId, streamId, sessionId, opts) => service.speaker(userId, streamId, sessionId, opts),
    };
    let stopping = false;
    return {
      service,
      provides: [provide(STREAMS, hub)],
      start() {
        if (!settings.prewarm || !p.streamRenderer?.warm) return;
        const started = Date.now();
        p.streamRenderer.warm().then(
          () => p.log.info('stream renderer warmed', { duration_ms: Date.now() - started }),
          // Not fatal: the first stream starts what is missing, and says why if it cannot.
          (err: unknown) => !stopping && p.log.warn('stream renderer warm-up failed', { error: err instanceof Error ? err.message : String(err) }),
        );
      },
      async stop() {
        stopping = true;
        await service.stop();
        await p.streamRenderer?.close();
      },
    };
  },
});
