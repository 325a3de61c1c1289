import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config.ts';
import { createServices, type ServiceOptions, type Services } from './services.ts';
import { createApp, type ServicePhase } from './app.ts';
import { attachSockets, type SocketServer, type UpgradeSource } from './http/sockets.ts';
import { databaseReady } from './db/database.ts';
import { rateLimitersOn } from './http/rate-limit/store-pg.ts';

export interface RunningServer {
  services: Services;
  server: ServerType;
  port: number;
  /** Where the process is: starting, serving, or stopping (readiness answers 503 from the start of the shutdown). */
  phase(): ServicePhase;
  /** Graceful: readiness 503, stop accepting, let requests in flight and running jobs finish within the grace period (jobs still running are handed back), flush webhooks, close the store. */
  shutdown(): Promise<void>;
}

export function buildApp(services: Services, phase: () => ServicePhase = () => 'serving') {
  return createApp({
    config: services.config,
    routes: services.routes,
    verifyKey: services.verifyKey,
    verifyToken: services.verifyToken,
    verifyClientKey: services.verifyClientKey,
    log: services.log,
    health: { phase, ready: () => services.readiness.run() },
    rateLimiters: rateLimitersOn(services.store),
  });
}

/** The modules' WebSocket endpoints on the HTTP server (src/http/sockets.ts). */
export function serveSockets(server: ServerType, services: Services, opts: { heartbeatMs?: number } = {}): SocketServer {
  const { config } = services;
  return attachSockets(server as unknown as UpgradeSource, {
    routes: services.sockets,
    verifyKey: services.verifyKey,
    verifyToken: services.verifyToken,
    verifyClientKey: services.verifyClientKey,
    corsOrigins: config.corsOrigins,
    publicUrl: config.publicUrl,
    log: services.log,
    ...opts,
  });
}

/**
 * How long an idle keep-alive connection stays open: longer than the idle timeouts of the
 * clients and proxies in front (undici 4 s, nginx 60 s upstream, cloud load balancers 60 s),
 * so that the client, not the server, closes it. With Node's 5 s default, a client whose
 * event loop was busy past its own 4 s timer could send a request on a connection the server
 * had just closed (ECONNRESET, seen on a loaded machine).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

function keepIdleConnections(server: ServerType): void {
  const http = server as { keepAliveTimeout?: number };
  http.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
}

/** An http public URL on a host other than loopback (cookies then travel without Secure). */
export function insecurePublicUrl(publicUrl: string): boolean {
  const { protocol, hostname } = new URL(publicUrl);
  return protocol === 'http:' && !(hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname));
}

/** The server could not listen: one line that says where and why, for the operator. */
export class ListenError extends Error {}

function listenError(err: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') return new ListenError(`cannot listen on ${where}: the port is already in use (another mimic, or another program); set PORT or HOST`);
  if (err.code === 'EACCES') return new ListenError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); set PORT`);
  if (err.code === 'EADDRNOTAVAIL') return new ListenError(`cannot listen on ${where}: no interface has this address; set HOST`);
  return err;
}

export async function startServer(config: Config, opts: ServiceOptions = {}): Promise<RunningServer> {
  const services = createServices(config, opts);
  try {
    // PostgreSQL: migrations applied (one process at a time) and change notices heard.
    await databaseReady(services.store);
    // Refuse to serve with a key that cannot decrypt what is stored (VaultKeyError says why).
    await services.vault.ready();
    // Then rewrite what needs the vault's values (once each; a failure stops the start).
    await services.migrateData();
  } catch (err) {
    await services.close();
    throw err;
  }
  let phase: ServicePhase = 'starting';
  const app = buildApp(services, () => phase);
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
      keepIdleConnections(s);
      s.once('error', reject);
    });
  } catch (err) {
    await services.close();
    throw listenError(err as NodeJS.ErrnoException, config);
  }
  const sockets = serveSockets(server, services);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.worker.enabled) services.worker.start();
  services.startModules();
  phase = 'serving';
  services.log.info('listening', { port, public_url: config.publicUrl, data_dir: config.dataDir, worker: config.worker.enabled });
  if (insecurePublicUrl(config.publicUrl)) {
    // Cookies are Secure only when the public URL says https: a proxy may end TLS in front of an http listener.
    services.log.warn('MIMIC_PUBLIC_URL is http and not loopback: studio session cookies are not Secure; behind a TLS proxy, set an https public URL', { public_url: config.publicUrl });
  }

  const grace = config.worker.shutdownGraceMs;
  /** Stops accepting; idle connections close at once, a request still in flight gets the grace period, then its connection is cut (a client that holds one open must not stall the shutdown). */
  const closeListener = () =>
    new Promise<void>((r) => {
      const cut = setTimeout(() => (server as { closeAllConnections?: () => void }).closeAllConnections?.(), grace);
      cut.unref();
      server.close(() => {
        clearTimeout(cut);
        r();
      });
    });
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      // Readiness answers 503 from here on: a load balancer takes the process out of rotation.
      phase = 'stopping';
      // Open sockets would keep server.close() waiting: they are closed (1001) first.
      await sockets.close();
      await services.stopModules();
      // Requests in flight and running jobs get the same grace period, side by side: a job still
      // running after it is aborted and handed back to the queue (its attempt not counted).
      await Promise.all([closeListener(), services.worker.stop(grace)]);
      await services.drainModules();
      await services.close();
    })());
  return { services, server, port, phase: () => phase, shutdown };
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
