import type { Config } from '../config.ts';
import { databaseReady, openDatabase, type Database } from '../db/database.ts';
import { createStores, type Stores } from './stores.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createLogger, type Logger } from '../log.ts';
import type { JobQueue } from '../jobs/store.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import { createComputeBackend, createStreamRenderer } from '../compute/adapter.ts';
import type { StreamRenderer } from '../compute/stream.ts';
import type { ComputeTasks } from '../compute/remote/task-store.ts';
import { createWorkerTokens, type WorkerTokens } from '../compute/remote/tokens.ts';
import { computeFilesFor, type ComputeFiles } from '../compute/remote/files.ts';
import { createGuardedClient, type GuardedClient, type Resolver } from '../egress/client.ts';
import { mediaAccessOf, openMediaStore, type MediaAccess, type MediaStore } from '../media/index.ts';
import { createVault, createKeyProvider, type Vault } from '../vault/index.ts';
import { createFaceAnalyzer, type FaceAnalyzer } from '../footage/faces.ts';
import { availableRecognisers, type SpeechRecogniser } from '../footage/recognition/index.ts';
import { createReadiness, type Readiness } from './readiness.ts';
import { databaseAnswers, migrationsApplied } from '../db/health.ts';

/**
 * What a process (or a test) starts the platform with. A capability that lets a test replace
 * its service adds its own field here by declaration merging from its contract.ts
 * (`declare module '../platform/platform.ts' { interface PlatformOptions { ... } }`).
 */
export interface PlatformOptions {
  clock?: Clock;
  newId?: IdFactory;
  log?: Logger;
  backend?: ComputeBackend;
  /** Extra trusted CA certificates for outbound TLS (tests trust their loopback server this way). */
  ca?: string[];
  resolve?: Resolver;
  /** The renderer of live streams, in place of the compute adapter's (tests pass a test double). */
  streamRenderer?: StreamRenderer;
}

/**
 * The layers below the capabilities, built once per process and handed to every module:
 * store, compute, vault, egress, media, the job queue and the footage analysers. It names no capability: what one capability offers another is a
 * service with a typed key (src/platform/service-key.ts).
 */
export interface Platform {
  /** What the process was started with (a provider may read its own test double here: see PlatformOptions). */
  options: PlatformOptions;
  config: Config;
  log: Logger;
  clock: Clock;
  newId: IdFactory;
  /** The database (SQLite, or PostgreSQL with MIMIC_DATABASE_URL): only store modules may use it, through `onDialect`. */
  store: Database;
  /** The infrastructure's stores (src/platform/stores.ts); the kit and each capability build theirs from `store`. */
  stores: Stores;
  client: GuardedClient;
  backend: ComputeBackend;
  mediaStore: MediaStore;
  media: MediaAccess;
  /** deriveKey(masterKey, 'signed-url'): signs media URLs. */
  urlKey: Buffer;
  queue: JobQueue;
  vault: Vault;
  /** Remote compute: the task table workers claim from, their tokens, the file-URL key. */
  compute: { tasks: ComputeTasks; workers: WorkerTokens; urlKey: Buffer; files: ComputeFiles };
  /** What renders live streams (the compute adapter's, or the one PlatformOptions gave); undefined: no live streams here. */
  streamRenderer: StreamRenderer;
  /** The process's one face analyser (a worker thread, started at its first use; closed with the platform). */
  faces: FaceAnalyzer;
  /** The speech recognisers installed here (none: what needs one waits for an operator). */
  recognisers: readonly SpeechRecogniser[];
  /** The named checks of GET /health/ready (the database and its migrations here; a module or a store adds its own, e.g. a bucket). */
  readiness: Readiness;
}

export function createPlatform(config: Config, opts: PlatformOptions = {}): Platform {
  const clock = opts.clock ?? systemClock;
  const newId = opts.newId ?? randomId;
  const log = opts.log ?? createLogger();
  const store = openDatabase(config);
  const urlKey = deriveKey(config.masterKey, 'signed-url');
  const mediaStore = openMediaStore(config);
  const media = mediaAccessOf(config, mediaStore, urlKey, clock);
  const stores = createStores(store, { clock, newId, compute: config.compute });
  const computeTasks = stores.computeTasks;
  const computeUrlKey = deriveKey(config.masterKey, 'compute-url');
  // Deleting a resource cancels its remote task at once, so its worker hears of it at its next heartbeat.
  const queue: JobQueue = {
    ...stores.jobs,
    async cancelFor(resourceId) {
      await stores.jobs.cancelFor(resourceId);
      await computeTasks.cancelForResource(resourceId);
    },
  };
  const client = createGuardedClient({
    allow: config.egressAllow,
    defaultTimeoutMs: config.fetch.timeoutMs,
    defaultMaxBytes: config.fetch.maxVideoBytes,
    ...(opts.ca ? { ca: opts.ca } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
  });
  const computeFiles = computeFilesFor(mediaStore, config.dataDir);
  const backend = opts.backend ?? createComputeBackend(config, { tasks: computeTasks, files: computeFiles });
  // The vault checks its keys as it starts (the server waits for vault.ready() before listening).
  const vault = createVault({ store: stores.vault, provider: createKeyProvider(config.keyProvider, config.masterKey), masterKey: config.masterKey, clock, newId, log, databaseReady: () => databaseReady(store) });
  return {
    options: opts,
    config,
    log,
    clock,
    newId,
    store,
    stores,
    client,
    backend,
    mediaStore,
    media,
    urlKey,
    queue,
    vault,
    compute: {
      tasks: computeTasks,
      workers: createWorkerTokens({ store: stores.workerTokens, clock, newId, hashKey: deriveKey(config.masterKey, 'worker-token-hash') }),
      urlKey: computeUrlKey,
      files: computeFiles,
    },
    streamRenderer: opts.streamRenderer ?? createStreamRenderer(config, { tasks: computeTasks, urlKey: computeUrlKey, clock, log, files: computeFiles }),
    faces: createFaceAnalyzer(),
    recognisers: availableRecognisers(),
    readiness: readinessOf(store, mediaStore, log),
  };
}

const isS3 = (m: MediaStore): m is MediaStore & { kind: 's3'; check(): Promise<void> } => m.kind === 's3' && 'check' in m;

/** What /health/ready checks: the database answers, its migrations are applied, and the bucket (media on S3) answers. */
function readinessOf(store: Database, media: MediaStore, log: Logger): Readiness {
  const readiness = createReadiness({ log });
  readiness.add('database', () => databaseAnswers(store));
  readiness.add('migrations', () => migrationsApplied(store));
  if (isS3(media)) readiness.add('bucket', () => media.check());
  return readiness;
}
