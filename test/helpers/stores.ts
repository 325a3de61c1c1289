/**
 * Every store of the service on one database handle, composed for tests. The service builds
 * them where they belong: src/platform/stores.ts the infrastructure's, the kit its resource store,
 * each capability its own in its module; a test that reads or seeds rows directly takes them
 * all from here.
 */
import type { Database, Store } from '../../src/db/database.ts';
import { storeMakers, type StoreOptions, type Stores } from '../../src/platform/stores.ts';
import type { LeaseLock } from '../../src/jobs/lock-store.ts';
import type { EnqueueJob, ResourceStore } from '../../src/resources/store.ts';
import { resourceStoreOn } from '../../src/resources/store-pg.ts';
import type { UserStore } from '../../src/users/store.ts';
import { userStoreOn } from '../../src/users/store-pg.ts';
import type { SecretStore } from '../../src/secrets/store.ts';
import { secretStoreOn } from '../../src/secrets/store-pg.ts';
import type { ConnectionStore } from '../../src/secrets/oauth2-connect/store.ts';
import { connectionStoreOn } from '../../src/secrets/oauth2-connect/store-pg.ts';
import { createSecretLock } from '../../src/secrets/lock-store.ts';
import type { ToolStore } from '../../src/tools/store.ts';
import { toolStoreOn } from '../../src/tools/store-pg.ts';
import type { AuditStore } from '../../src/audit/store.ts';
import { auditStoreOn } from '../../src/audit/store-pg.ts';
import type { AgentStore } from '../../src/agents/store.ts';
import { agentStoreOn } from '../../src/agents/store-pg.ts';
import type { ChatStore } from '../../src/agents/chat/store.ts';
import { chatStoreOn } from '../../src/agents/chat/store-pg.ts';
import type { ClientKeyStore } from '../../src/agents/client-keys/store.ts';
import { clientKeyStoreOn } from '../../src/agents/client-keys/store-pg.ts';
import type { OutboxStore } from '../../src/webhooks/outbox-store.ts';
import { outboxStoreOn } from '../../src/webhooks/outbox-store-pg.ts';
import type { WebhookSecretStore } from '../../src/webhooks/secrets-store.ts';
import { webhookSecretStoreOnDatabase } from '../../src/webhooks/secrets-store-pg.ts';
import type { AccountStore } from '../../src/accounts/store.ts';
import { accountStoreOn } from '../../src/accounts/store-pg.ts';
import type { LiveStreamStore } from '../../src/streams/store.ts';
import { liveStreamStoreOn } from '../../src/streams/store-pg.ts';
import { randomId, systemClock } from '../../src/clock.ts';

/** The SQLite handle of a database a test made on SQLite (a test that reads or writes rows with SQL). */
export function sqliteOf(database: Database): Store {
  if (database.dialect !== 'sqlite') throw new Error('this test reads the SQLite file directly; it runs on SQLite only');
  return database;
}

export interface AllStores extends Stores {
  /** The kit's: every asynchronous resource (src/resources/store.ts). */
  readonly resources: ResourceStore;
  /** The users capability's: users, their API keys and credits. */
  readonly users: UserStore;
  /** The secrets capability's: secrets and their sealed values, and the oauth2 refresh lock on their rows. */
  readonly secrets: SecretStore;
  readonly secretLocks: LeaseLock;
  /** The secrets capability's OAuth connect attempts. */
  readonly oauthConnections: ConnectionStore;
  readonly tools: ToolStore;
  readonly audit: AuditStore;
  /** The agents capability's: agents and the tools each may call, their chats and messages. */
  readonly agents: AgentStore;
  readonly agentChats: ChatStore;
  /** Browsers' client keys of agents. */
  readonly clientKeys: ClientKeyStore;
  /** The webhooks capability's: the outbox's messages and attempts, and the per-user signing secrets (sealed). */
  readonly outbox: OutboxStore;
  readonly webhookSecrets: WebhookSecretStore;
  /** The accounts capability's: emails and password hashes, studio sessions, one-time tokens, signing keys, sign-in counters. */
  readonly accounts: AccountStore;
  /** The streams capability's: which process owns each live stream (docs/streams-across-processes.md). */
  readonly liveStreams: LiveStreamStore;
}

export interface AllStoreOptions extends StoreOptions {
  /** The synchronous job insert that `resources.create` runs inside its transaction; by default this database's job store. */
  enqueueJob?: EnqueueJob;
}

/**
 * Each store is built when a test first reads it, so a test of one store runs on a dialect
 * whose other stores are not ready (while a PostgreSQL port is under way, say).
 */
function lazily<T extends object>(makers: { [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const key of Object.keys(makers) as (keyof T)[]) {
    let made = false;
    let value: T[keyof T];
    Object.defineProperty(out, key, {
      enumerable: true,
      get: () => {
        if (!made) {
          value = makers[key]();
          made = true;
        }
        return value;
      },
    });
  }
  return out;
}

export function createAllStores(handle: Database, opts: AllStoreOptions = {}): AllStores {
  const newId = opts.newId ?? randomId;
  const infra = lazily<Stores>({ handle: () => handle, ...storeMakers(handle, opts) });
  return lazily<AllStores>({
    handle: () => handle,
    jobs: () => infra.jobs,
    computeTasks: () => infra.computeTasks,
    workerTokens: () => infra.workerTokens,
    vault: () => infra.vault,
    resources: () => resourceStoreOn(handle, opts.enqueueJob ?? infra.jobs.enqueue),
    users: () => userStoreOn(handle),
    secrets: () => secretStoreOn(handle),
    secretLocks: () => createSecretLock(handle),
    oauthConnections: () => connectionStoreOn(handle),
    tools: () => toolStoreOn(handle),
    audit: () => auditStoreOn(handle),
    agents: () => agentStoreOn(handle),
    agentChats: () => chatStoreOn(handle),
    clientKeys: () => clientKeyStoreOn(handle),
    outbox: () => outboxStoreOn(handle, newId),
    webhookSecrets: () => webhookSecretStoreOnDatabase(handle),
    accounts: () => accountStoreOn(handle),
    liveStreams: () => liveStreamStoreOn(handle, opts.clock ?? systemClock),
  });
}
