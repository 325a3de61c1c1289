import type { Store } from './client.ts';
import { createSqliteVaultStore, type VaultStore } from '../vault/store.ts';
import { createSqliteSecretStore, type SecretStore } from '../secrets/store.ts';
import { createSqliteToolStore, type ToolStore } from '../tools/store.ts';
import { createSqliteAuditStore, type AuditStore } from '../audit/store.ts';
import { createSqliteWebhookSecretStore, type WebhookSecretStore } from '../webhooks/secrets-store.ts';

/**
 * Every store of the service, built for one database. Domain code receives these async
 * interfaces and never the SQL handle: a second dialect (PostgreSQL) is a second factory
 * beside `createSqliteStores`, and the contract suite under test/stores/ runs on both.
 */
export interface Stores {
  /** The SQLite handle, for the store modules that are built from it. */
  readonly handle: Store;
  /** Key-encryption keys, the master key check, and the re-wrap of data keys. */
  readonly vault: VaultStore;
  /** Secrets and their sealed values. */
  readonly secrets: SecretStore;
  readonly tools: ToolStore;
  readonly audit: AuditStore;
  /** Per-user webhook signing secrets (sealed). */
  readonly webhookSecrets: WebhookSecretStore;
}

export function createSqliteStores(handle: Store): Stores {
  return {
    handle,
    vault: createSqliteVaultStore(handle),
    secrets: createSqliteSecretStore(handle),
    tools: createSqliteToolStore(handle),
    audit: createSqliteAuditStore(handle),
    webhookSecrets: createSqliteWebhookSecretStore(handle.db),
  };
}
