import { defineModule } from '../platform/module.ts';
import { computeRoutes } from './routes.ts';
import { WORKER_COMMANDS } from './remote/cli.ts';
import { isRemoteStreamRenderer } from './remote/stream.ts';
import type { SocketRoute } from '../platform/module.ts';

/** The compute worker protocol (/compute/v1), served when renders go to remote workers. */
export const computeModule = defineModule({
  name: 'compute',
  commands: WORKER_COMMANDS,
  create(p) {
    if (p.config.computeBackend !== 'remote') return {};
    const { config, compute, clock } = p;
    return {
      routes: computeRoutes({
        tasks: compute.tasks,
        workers: compute.workers,
        urlKey: compute.urlKey,
        publicUrl: config.publicUrl,
        urlTtlSeconds: config.signedUrlTtlSeconds,
        maxResultBytes: config.fetch.maxVideoBytes,
        pollMs: config.compute.pollMs,
        clock,
      }),
      // Workers stream live media back over their stream socket (docs/compute-protocol.md, "Live streams").
      ...(isRemoteStreamRenderer(p.streamRenderer) ? { sockets: [p.streamRenderer.socket as SocketRoute<unknown>] } : {}),
      // Waiting claims answer 204 at shutdown instead of holding the close.
      async stop() {
        compute.tasks.stopClaims();
      },
    };
  },
});
