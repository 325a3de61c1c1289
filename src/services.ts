import type { Config } from './config.ts';
import { openStore, type Store } from './db/client.ts';
import { createSqliteStores, type Stores } from './db/stores.ts';
import { deriveKey } from './keys.ts';
import { systemClock, randomId, type Clock, type IdFactory } from './clock.ts';
import { createLogger, type Logger } from './log.ts';
import { createJobQueue, type JobQueue } from './jobs/queue.ts';
import { createWorker, type Worker } from './jobs/worker.ts';
import { animationSchemas } from './schemas/animations.ts';
import type { AnimationDeps } from './animations/deps.ts';
import { RENDER_JOB } from './animations/deps.ts';
import { renderAnimation, finishWithError, type RenderDeps } from './animations/render.ts';
import { presentAnimation } from './animations/present.ts';
import { getAnimationById } from './animations/store.ts';
import { makeKeyVerifier } from './users/store.ts';
import type { ComputeBackend } from './compute/interface.ts';
import { createComputeBackend } from './compute/adapter.ts';
import { createComputeTasks, type ComputeTasks } from './compute/remote/tasks.ts';
import { createWorkerTokens, type WorkerTokens } from './compute/remote/tokens.ts';
import { createGuardedClient, type GuardedClient, type Resolver } from './egress/client.ts';
import { createLocalMediaStore, createMediaAccess, type LocalMediaStore, type MediaAccess } from './media/index.ts';
import { createWebhookDispatcher, enqueueWebhook, type WebhookDispatcher } from './webhooks/index.ts';
import { createWebhookSecrets, type WebhookSecrets } from './webhooks/secrets.ts';
import type { AuthUser } from './users/auth-user.ts';
import { createVault, createKeyProvider, type Vault } from './vault/index.ts';
import type { SecretDeps } from './secrets/deps.ts';
import { createOAuth2Refresher } from './secrets/oauth2/index.ts';
import { auditRefresh, createVaultTokenStore } from './secrets/oauth2-tokens.ts';
import type { ToolCallDeps } from './tools/call.ts';

export interface ServiceOptions {
  clock?: Clock;
  newId?: IdFactory;
  log?: Logger;
  backend?: ComputeBackend;
  /** Extra trusted CA certificates for outbound TLS (tests trust their loopback server this way). */
  ca?: string[];
  resolve?: Resolver;
}

/** Everything the process runs, wired once: the composition root. */
export interface Services {
  config: Config;
  store: Store;
  /** The async stores built on `store`. */
  stores: Stores;
  log: Logger;
  clock: Clock;
  animations: AnimationDeps;
  render: RenderDeps;
  client: GuardedClient;
  backend: ComputeBackend;
  mediaStore: LocalMediaStore;
  media: MediaAccess;
  queue: JobQueue;
  worker: Worker;
  dispatcher: WebhookDispatcher;
  webhookSecrets: WebhookSecrets;
  verifyKey: (apiKey: string) => AuthUser | null;
  urlKey: Buffer;
  vault: Vault;
  secrets: SecretDeps;
  tools: ToolCallDeps;
  /** Remote compute: the task table workers claim from, their tokens, the file-URL key. */
  compute: { tasks: ComputeTasks; workers: WorkerTokens; urlKey: Buffer };
  close(): Promise<void>;
}

export function createServices(config: Config, opts: ServiceOptions = {}): Services {
  const clock = opts.clock ?? systemClock;
  const newId = opts.newId ?? randomId;
  const log = opts.log ?? createLogger();
  const store = openStore(config.databaseFile);
  const stores = createSqliteStores(store);
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
  const computeTasks = createComputeTasks(store.sqlite, clock, newId, config.compute);
  const jobQueue = createJobQueue(store.sqlite, clock, newId);
  // Deleting an animation cancels its remote task at once, so its worker hears of it at its next heartbeat.
  const queue: JobQueue = {
    ...jobQueue,
    cancelFor(resourceId) {
      jobQueue.cancelFor(resourceId);
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
  const animations: AnimationDeps = { config, store, clock, newId, schemas: animationSchemas(config.storageScheme), queue, media };

  const onFinished: RenderDeps['onFinished'] = (row) => {
    const req = JSON.parse(row.request) as { webhook?: string };
    if (!req.webhook) return;
    enqueueWebhook(store.db, {
      userId: row.userId,
      event: `animation.${row.status}`,
      resourceId: row.id,
      url: req.webhook,
      now: clock.now(),
    });
  };
  const render: RenderDeps = { ...animations, backend, client, log, onFinished };

  const worker = createWorker({
    queue,
    handlers: { [RENDER_JOB]: (job, ctx) => renderAnimation(render, job, ctx) },
    onExhausted: (job, reason) => {
      log.error('job gave up', { job_id: job.id, kind: job.kind, reason });
      if (job.kind === RENDER_JOB) {
        finishWithError(render, job.resourceId, 'UnknownError', 'The animation could not be rendered after several attempts');
      }
    },
    concurrency: config.worker.concurrency,
    leaseMs: config.worker.leaseMs,
    pollMs: config.worker.pollMs,
    log,
  });

  const webhookSecrets = createWebhookSecrets({ store: stores.webhookSecrets, clock, masterKey: config.masterKey });
  const dispatcher = createWebhookDispatcher({
    store,
    client,
    clock,
    secrets: webhookSecrets,
    schedule: config.webhooks.retryScheduleMs,
    timeoutMs: config.webhooks.timeoutMs,
    pollMs: config.webhooks.pollMs,
    log,
    buildBody: async (event, resourceId) => {
      if (!event.startsWith('animation.')) return null;
      const row = getAnimationById(store, resourceId);
      return row ? presentAnimation(row, media) : null;
    },
  });

  // The vault checks its keys as it starts (server.ts waits for vault.ready() before listening).
  const vault = createVault({ store: stores.vault, provider: createKeyProvider(config.keyProvider, config.masterKey), masterKey: config.masterKey, clock, newId, log });
  const secrets: SecretDeps = { secretStore: stores.secrets, vault, clock, newId };
  const refresher = createOAuth2Refresher({
    tokens: createVaultTokenStore(secrets),
    sqlite: store.sqlite,
    client,
    clock,
    log,
    onEvent: (e) => {
      auditRefresh({ ...secrets, audit: stores.audit }, e).catch((err: unknown) => log.error('oauth2: the refresh audit row was not written', { error: String(err) }));
    },
  });
  const tools: ToolCallDeps = { ...secrets, toolStore: stores.tools, client, refresher, log, limits: config.tools };

  const verifyKey = makeKeyVerifier({ store, clock, newId, apiKeyHashKey: deriveKey(config.masterKey, 'api-key-hash') });

  const compute = {
    tasks: computeTasks,
    workers: createWorkerTokens({ sqlite: store.sqlite, clock, newId, hashKey: deriveKey(config.masterKey, 'worker-token-hash') }),
    urlKey: deriveKey(config.masterKey, 'compute-url'),
  };

  return {
    config, store, stores, log, clock, animations, render, client, backend, mediaStore, media, queue, worker, dispatcher, webhookSecrets, verifyKey, urlKey, vault, secrets, tools, compute,
    async close() {
      await backend.close();
      await client.close();
      store.close();
    },
  };
}
