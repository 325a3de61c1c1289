import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config.ts';
import { createServices, type ServiceOptions, type Services } from './services.ts';
import { createApp } from './app.ts';
import { mediaRoutes } from './http/routes/media.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { imageRoutes } from './http/routes/images.ts';
import { secretRoutes } from './http/routes/secrets.ts';
import { toolRoutes } from './http/routes/tools.ts';
import { auditRoutes } from './http/routes/audit.ts';
import { computeRoutes } from './http/routes/compute.ts';

export interface RunningServer {
  services: Services;
  server: ServerType;
  port: number;
  /** Graceful: stop accepting, finish or release running jobs, flush webhooks, close the store. */
  shutdown(): Promise<void>;
}

export function buildApp(services: Services, isReady: () => boolean = () => true) {
  return createApp({
    animations: services.animations,
    verifyKey: services.verifyKey,
    log: services.log,
    publicRoutes: [
      mediaRoutes({ store: services.mediaStore, urlKey: services.urlKey, clock: services.clock }),
      ...(services.config.computeBackend === 'remote' ? [remoteComputeRoutes(services)] : []),
    ],
    privateRoutes: [
      webhookRoutes({ store: services.store, secrets: services.webhookSecrets, clock: services.clock }),
      imageRoutes({
        media: services.media,
        newId: services.animations.newId,
        storageScheme: services.config.storageScheme,
        maxBytes: services.config.fetch.maxImageBytes,
      }),
      secretRoutes(services.secrets, services.config.publicUrl),
      toolRoutes(services.tools),
      auditRoutes(services.stores.audit),
    ],
    isReady,
  });
}

function remoteComputeRoutes(services: Services) {
  const { config, compute, clock } = services;
  return computeRoutes({
    tasks: compute.tasks,
    workers: compute.workers,
    urlKey: compute.urlKey,
    publicUrl: config.publicUrl,
    urlTtlSeconds: config.signedUrlTtlSeconds,
    maxResultBytes: config.fetch.maxVideoBytes,
    pollMs: config.compute.pollMs,
    clock,
  });
}

export async function startServer(config: Config, opts: ServiceOptions = {}): Promise<RunningServer> {
  const services = createServices(config, opts);
  try {
    // Refuse to serve with a key that cannot decrypt what is stored (VaultKeyError says why).
    await services.vault.ready();
  } catch (err) {
    await services.close();
    throw err;
  }
  let ready = false;
  const app = buildApp(services, () => ready);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.worker.enabled) services.worker.start();
  if (config.webhooks.enabled) services.dispatcher.start();
  ready = true;
  services.log.info('listening', { port, public_url: config.publicUrl, data_dir: config.dataDir, worker: config.worker.enabled });

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      ready = false;
      services.compute.tasks.stopClaims(); // waiting claims answer 204 now instead of holding the close
      await new Promise<void>((r) => server.close(() => r()));
      await services.worker.stop(config.worker.shutdownGraceMs);
      await services.dispatcher.stop();
      await services.close();
    })());
  return { services, server, port, shutdown };
}

/** `npm start`: serve until SIGTERM or SIGINT, then shut down gracefully. */
export async function runServer(config: Config): Promise<void> {
  const running = await startServer(config);
  const onSignal = (signal: string) => {
    running.services.log.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), config.worker.shutdownGraceMs + 15_000);
    force.unref();
    running.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
}
