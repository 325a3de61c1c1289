import type { Config } from './config.ts';
import { createPlatform, type Platform, type PlatformOptions } from './platform/platform.ts';
import type { CapabilityModule, ModuleContext, ModuleInstance, Route, SocketRoute, WebhookResource } from './platform/module.ts';
import { orderModules } from './platform/order.ts';
import type { AnyServiceKey, ServiceKey } from './platform/service-key.ts';
import { createWorker, type Worker } from './jobs/worker.ts';
import { jobCatalogue } from './jobs/catalogue.ts';
import { MODULES } from './modules.ts';
import { runDataMigrations } from './db/data-migrations.ts';
import { dataMigrationStoreOn } from './db/data-migrations-pg.ts';
import { closeDatabase } from './db/database.ts';
import { declareErrorKinds } from './errors.ts';
import {
  BEARER_TOKENS, CLIENT_KEY_OWNERS, KEY_OWNERS, clientKeyVerifier, keyVerifier, tokenVerifier,
  type AuthUser, type BearerTokens, type ClientKeyCredential, type ClientKeyOwners, type KeyOwners,
} from './platform/caller.ts';

export type ServiceOptions = PlatformOptions;

type Modules = typeof MODULES;
/** Each listed module's instance, by its name. */
export type ModuleInstances = { [M in Modules[number] as M['name']]: ReturnType<M['create']> };

/** Everything the process runs, wired once: the composition root. It names no capability. */
export interface Services extends Platform {
  modules: ModuleInstances;
  /** The caller an API key stands for, from the key owners a module provides (KEY_OWNERS); none: no key verifies. */
  verifyKey: (apiKey: string) => Promise<AuthUser | null>;
  /** The caller a bearer token (JWT) stands for, from the tokens a module provides (BEARER_TOKENS); none: no token verifies. */
  verifyToken: (jws: string) => Promise<AuthUser | null>;
  /** The caller a browser's client key stands for, from the owners a module provides (CLIENT_KEY_OWNERS); none: no client key verifies. */
  verifyClientKey: (credential: ClientKeyCredential) => Promise<AuthUser | null>;
  /** A service a module provides (e.g. a test reads the voice catalogue), or undefined when no listed module provides it. */
  find<T>(key: ServiceKey<T>): T | undefined;
  /** Every module's routes, in the order of the modules' list (the OpenAPI document's; mounting orders them by path shape). */
  routes: Route[];
  /** Every module's WebSocket endpoints (src/http/sockets.ts serves them). */
  sockets: SocketRoute<unknown>[];
  worker: Worker;
  /** Runs the modules' pending data migrations (after vault.ready(), before the server listens). */
  migrateData(): Promise<void>;
  /** Starts the modules' background work (after the server listens). */
  startModules(): void;
  /** Stops it (first thing at shutdown). */
  stopModules(): Promise<void>;
  /** Stops what carries the jobs' results out (after the job runner stopped). */
  drainModules(): Promise<void>;
  close(): Promise<void>;
}

type AnyModule = CapabilityModule<any, ModuleInstance>;

export function createServices(config: Config, opts: ServiceOptions = {}, modules: readonly AnyModule[] = MODULES): Services {
  // Providers first; a missing provider or a cycle is refused before anything is opened.
  const ordered = orderModules(modules, MODULES);
  // Every module's settings are read (and refused) before anything is opened.
  const settings = ordered.map((m) => m.config?.load(config.env));
  // Their error kinds join the one catalogue (a kind given two statuses fails here, naming both).
  declareErrorKinds(ordered);
  const platform = createPlatform(config, opts);
  const provided = new Map<AnyServiceKey, unknown>();
  const resources: WebhookResource[] = [];
  const built = ordered.map((m, i): [string, ModuleInstance] => {
    const instance = m.create(platform, settings[i], servicesFor(m, provided, resources));
    for (const { key, value } of instance.provides ?? []) {
      if (!m.provides?.includes(key)) throw new Error(`the module "${m.name}" provides the service "${key.name}" without declaring it in its provides`);
      provided.set(key, value);
    }
    const unfilled = m.provides?.find((key) => !provided.has(key));
    if (unfilled) throw new Error(`the module "${m.name}" declares it provides the service "${unfilled.name}" but its instance does not`);
    return [m.name, instance];
  });
  const instances = built.map(([, i]) => i);
  resources.push(...instances.flatMap((i) => i.resources ?? []));
  const { log } = platform;

  const worker = createWorker({
    queue: platform.queue,
    catalogue: jobCatalogue(
      instances.flatMap((i) => i.jobs ?? []).map((kind) => ({
        ...kind,
        onExhausted: async (job, reason) => {
          log.error('job gave up', { job_id: job.id, kind: job.kind, reason });
          await kind.onExhausted(job, reason);
        },
      })),
    ),
    concurrency: config.worker.concurrency,
    leaseMs: config.worker.leaseMs,
    pollMs: config.worker.pollMs,
    log,
  });

  return {
    ...platform,
    modules: Object.fromEntries(built) as ModuleInstances,
    verifyKey: keyVerifier(provided.get(KEY_OWNERS) as KeyOwners | undefined, config.masterKey),
    verifyToken: tokenVerifier(provided.get(BEARER_TOKENS) as BearerTokens | undefined),
    verifyClientKey: clientKeyVerifier(provided.get(CLIENT_KEY_OWNERS) as ClientKeyOwners | undefined, provided.get(KEY_OWNERS) as KeyOwners | undefined, config.masterKey),
    find: <T>(key: ServiceKey<T>) => provided.get(key) as T | undefined,
    routes: inListOrder(modules, built).flatMap((i) => i.routes ?? []),
    sockets: instances.flatMap((i) => i.sockets ?? []),
    worker,
    async migrateData() {
      const migrations = instances.flatMap((i) => i.dataMigrations ?? []);
      await runDataMigrations(dataMigrationStoreOn(platform.store), migrations, () => platform.clock.now(), log);
    },
    startModules() {
      for (const i of instances) i.start?.();
    },
    async stopModules() {
      for (const i of instances) await i.stop?.();
    },
    async drainModules() {
      for (const i of instances) await i.drain?.();
    },
    async close() {
      await platform.faces.close();
      await platform.backend.close();
      await platform.client.close();
      await closeDatabase(platform.store);
    },
  };
}

/** What a module may reach of the services created before it (only the keys it declared), and every module's resource kinds once all are built. */
function servicesFor(m: AnyModule, provided: ReadonlyMap<AnyServiceKey, unknown>, resources: readonly WebhookResource[]): ModuleContext<AnyServiceKey, AnyServiceKey> {
  const declared = (keys: readonly AnyServiceKey[] | undefined, key: AnyServiceKey, as: string) => {
    if (!keys?.includes(key)) throw new Error(`the module "${m.name}" asks for the service "${key.name}" without declaring it in its ${as}`);
  };
  return {
    get(key) {
      declared(m.needs, key, 'needs');
      return provided.get(key) as never;
    },
    find(key) {
      declared(m.uses, key, 'uses');
      return provided.get(key) as never;
    },
    resources: () => resources,
  };
}

/** The instances in the order of the modules' list, whatever order they were created in. */
function inListOrder(modules: readonly AnyModule[], built: readonly [string, ModuleInstance][]): ModuleInstance[] {
  const created = new Map(built);
  return modules.map((m) => created.get(m.name)!);
}
