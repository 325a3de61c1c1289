import type { Config } from '../config.ts';
import { openStore, type Store } from '../db/client.ts';
import { createSqliteStores, type Stores } from '../db/stores.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId, type Clock, type IdFactory } from '../clock.ts';
import { createLogger, type Logger } from '../log.ts';
import type { JobQueue } from '../jobs/store.ts';
import { makeKeyVerifier } from '../users/accounts.ts';
import type { AuthUser } from '../users/auth-user.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import { createComputeBackend, createStreamRenderer } from '../compute/adapter.ts';
import type { StreamRenderer } from '../compute/stream.ts';
import type { ComputeTasks } from '../compute/remote/task-store.ts';
import { createWorkerTokens, type WorkerTokens } from '../compute/remote/tokens.ts';
import { createGuardedClient, type GuardedClient, type Resolver } from '../egress/client.ts';
import { createLocalMediaStore, createMediaAccess, type LocalMediaStore, type MediaAccess } from '../media/index.ts';
import { createWebhookSecrets, type WebhookSecrets } from '../webhooks/secrets.ts';
import { createVault, createKeyProvider, type Vault } from '../vault/index.ts';
import type { VoiceCatalogue } from '../voices/catalogue.ts';
import type { ToolCallDeps } from '../tools/call.ts';
import type { ConsentsForAvatars } from '../consents/access.ts';
import type { FaceAnalyzer } from '../footage/faces.ts';
import type { SpeechRecogniser } from '../footage/recognition/interface.ts';
import type { PresenterCatalogue, UserPresenterSource } from '../presenters/catalogue.ts';
import type { StreamHub } from '../streams/interface.ts';

export interface PlatformOptions {
  clock?: Clock;
  newId?: IdFactory;
  log?: Logger;
  backend?: ComputeBackend;
  /** Extra trusted CA certificates for outbound TLS (tests trust their loopback server this way). */
  ca?: string[];
  resolve?: Resolver;
  /** The voices that speak scripts, in place of the voices module's (tests pass a test double). */
  voices?: VoiceCatalogue;
  /** The renderer of live streams, in place of the compute adapter's (tests pass a test double). */
  streamRenderer?: StreamRenderer;
}

/**
 * What a module may provide to the modules after it (`ModuleInstance.provides`); each field
 * is optional on the `Platform`, because a build of the service may leave its module out.
 */
export interface ProvidedServices {
  /** The voice catalogue (src/voices/module.ts) every speaking capability speaks with. */
  voices?: VoiceCatalogue;
  /** The tool runtime (src/tools/module.ts): agent chats run their model's server tool calls through it. */
  toolCalls?: ToolCallDeps;
  /** Live streams (src/streams/module.ts): talks, clips and agents add their stream routes with it; agent chat speaks on it. */
  streams?: StreamHub;
  /** Consents (src/consents/module.ts): what an avatar checks of its consent. */
  consents?: ConsentsForAvatars;
  /** The process's one face analyser (a worker thread) and the speech recognisers here (src/consents/module.ts). */
  footage?: { faces: FaceAnalyzer; recognisers: readonly SpeechRecogniser[] };
  /** Users' own presenters (src/avatars/module.ts): trained premium-plus avatars. */
  userPresenters?: UserPresenterSource;
  /** The presenter catalogue (src/presenters/module.ts): clips, streams and agents speak with its presenters. */
  presenters?: PresenterCatalogue;
}

/**
 * The layers below the capabilities, built once per process and handed to every module:
 * store, compute, vault, egress, media, the job queue and the webhook outbox's signing keys.
 * It names no capability.
 */
export interface Platform extends ProvidedServices {
  config: Config;
  log: Logger;
  clock: Clock;
  newId: IdFactory;
  /** The SQL handle: only store modules may use it. */
  store: Store;
  stores: Stores;
  client: GuardedClient;
  backend: ComputeBackend;
  mediaStore: LocalMediaStore;
  media: MediaAccess;
  /** deriveKey(masterKey, 'signed-url'): signs media URLs. */
  urlKey: Buffer;
  queue: JobQueue;
  vault: Vault;
  webhookSecrets: WebhookSecrets;
  verifyKey: (apiKey: string) => Promise<AuthUser | null>;
  /** Remote compute: the task table workers claim from, their tokens, the file-URL key. */
  compute: { tasks: ComputeTasks; workers: WorkerTokens; urlKey: Buffer };
  /** What renders live streams (the compute adapter's, or the one PlatformOptions gave); undefined: no live streams here. */
  streamRenderer: StreamRenderer;
}

export function createPlatform(config: Config, opts: PlatformOptions = {}): Platform {
  const clock = opts.clock ?? systemClock;
  const newId = opts.newId ?? randomId;
  const log = opts.log ?? createLogger();
  const store = openStore(config.databaseFile);
  const urlKey = deriveKey(config.masterKey, 'signed-url');
  const mediaStore = createLocalMediaStore(config.mediaDir);
  const media = createMediaAccess({
    store: mediaStore,
    publicUrl: config.publicUrl,
    urlKey,
    ttlSeconds: config.signedUrlTtlSeconds,
    scheme: config.storageScheme,
    clock,
  });
  // The resource store queues a new resource's job inside its transaction, through `queue` (late-bound: tests replace it).
  const stores = createSqliteStores(store, { clock, newId, compute: config.compute, enqueueJob: (input) => queue.enqueue(input) });
  const computeTasks = stores.computeTasks;
  const computeUrlKey = deriveKey(config.masterKey, 'compute-url');
  // Deleting a resource cancels its remote task at once, so its worker hears of it at its next heartbeat.
  const queue: JobQueue = {
    ...stores.jobs,
    cancelFor(resourceId) {
      stores.jobs.cancelFor(resourceId);
      computeTasks.cancelForResource(resourceId);
    },
  };
  const client = createGuardedClient({
    allow: config.egressAllow,
    defaultTimeoutMs: config.fetch.timeoutMs,
    defaultMaxBytes: config.fetch.maxVideoBytes,
    ...(opts.ca ? { ca: opts.ca } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
  });
  const backend = opts.backend ?? createComputeBackend(config, { tasks: computeTasks });
  // The vault checks its keys as it starts (the server waits for vault.ready() before listening).
  const vault = createVault({ store: stores.vault, provider: createKeyProvider(config.keyProvider, config.masterKey), masterKey: config.masterKey, clock, newId, log });
  return {
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
    webhookSecrets: createWebhookSecrets({ store: stores.webhookSecrets, clock, masterKey: config.masterKey }),
    verifyKey: makeKeyVerifier({ users: stores.users, apiKeyHashKey: deriveKey(config.masterKey, 'api-key-hash') }),
    compute: {
      tasks: computeTasks,
      workers: createWorkerTokens({ store: stores.workerTokens, clock, newId, hashKey: deriveKey(config.masterKey, 'worker-token-hash') }),
      urlKey: computeUrlKey,
    },
    streamRenderer: opts.streamRenderer ?? createStreamRenderer(config, { tasks: computeTasks, urlKey: computeUrlKey, clock, log }),
    ...(opts.voices ? { voices: opts.voices } : {}),
  };
}
