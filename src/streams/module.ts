import { join } from 'node:path';
import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { VOICES } from '../voices/contract.ts';
import { USERS } from '../users/contract.ts';
import { STREAMS } from './contract.ts';
import type { StreamHub } from './interface.ts';
import { createStreamService } from './hub.ts';
import { streamRoutes } from './routes.ts';
import { defaultInternalUrl, streamSettings } from './settings.ts';
import { deriveKey } from '../keys.ts';
import { randomId } from '../clock.ts';
import { liveStreamStoreOn } from './store-pg.ts';
import { createStreamRegistry } from './registry.ts';
import { createForwarder } from './forward.ts';
import { createStreamRouting } from './routing.ts';
import { internalStreamRoute } from './internal-route.ts';

/**
 * Live streams (docs/streams.md): WebRTC from the server (werift), a face rendered by the
 * platform's `StreamRenderer`, speech from the voices. Talks, clips and agents add their
 * routes with `STREAMS`' `streamRoutes`, and agent chat speaks on an agent's stream with its
 * `speaker`; its own route takes the requests other API processes forward to the streams
 * this one holds (docs/streams-across-processes.md).
 */
export const streamsModule = defineModule({
  name: 'streams',
  config: streamSettings,
  needs: [USERS],
  uses: [VOICES],
  provides: [STREAMS],
  create(p, settings, services) {
    // Late-bound: the registry closes a stream of the service its record was ended for.
    const lost = { close: (_id: string) => {} };
    const registry = createStreamRegistry({
      store: liveStreamStoreOn(p.store, p.clock),
      // Unique across the deployment whatever ids a test injects: two processes must never share one.
      processId: randomId('proc'),
      ownerUrl: settings.internalUrl ?? defaultInternalUrl(p.config.host, p.config.port),
      heartbeatMs: settings.heartbeatMs,
      staleMs: settings.staleMs,
      log: p.log,
      lost: (id) => lost.close(id),
    });
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
      registry,
    });
    lost.close = (id) => service.lost(id);
    const forwardKey = deriveKey(p.config.masterKey, 'stream-forward');
    const routing = createStreamRouting({ service, registry, forwarder: createForwarder({ key: forwardKey, clock: p.clock }), log: p.log });
    const hub: StreamHub = {
      streamRoutes: (variant) => streamRoutes(service, routing, variant),
      speaker: (userId, streamId, sessionId, opts) => routing.speaker(userId, streamId, sessionId, opts),
    };
    let stopping = false;
    return {
      service,
      provides: [provide(STREAMS, hub)],
      routes: [internalStreamRoute({ key: forwardKey, clock: p.clock, routing })],
      start() {
        registry.start();
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
        await registry.stop();
        await service.stop();
        await p.streamRenderer?.close();
      },
    };
  },
});
