import { defineModule } from '../platform/module.ts';
import { computeRoutes } from './routes.ts';
import { WORKER_COMMANDS } from './cli.ts';
import { isRemoteStreamRenderer, type WorkerStreamSocket, type StreamGrant } from '../compute/remote/stream.ts';
import type { SocketRoute } from '../platform/module.ts';

/** The stream socket compute's remote renderer answers, as a WebSocket route of the server (its sockets are the platform's). */
const socketRoute = (socket: WorkerStreamSocket): SocketRoute<StreamGrant> => socket;

/**
 * The compute worker protocol (/compute/v1), served when renders go to remote workers, and the
 * `workers` commands that add, list and revoke worker tokens and run a worker. The protocol's
 * tasks, tokens, signing and stream renderer are compute's (src/compute/remote/).
 */
export const workersModule = defineModule({
  name: 'workers',
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
        files: compute.files,
      }),
      // Workers stream live media back over their stream socket (docs/compute-protocol.md, "Live streams").
      ...(isRemoteStreamRenderer(p.streamRenderer) ? { sockets: [socketRoute(p.streamRenderer.socket) as SocketRoute<unknown>] } : {}),
      // Waiting claims answer 204 at shutdown instead of holding the close.
      async stop() {
        compute.tasks.stopClaims();
      },
    };
  },
});
