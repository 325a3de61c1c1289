import { pgTable, text, bigint, index, primaryKey } from 'drizzle-orm/pg-core';
import { users } from './core.ts';

/** Times are integer milliseconds since the epoch. The invariants live in src/vault/README.md. */

/**
 * Key-encryption keys (KEKs). Each is 32 random bytes, stored only wrapped by the key
 * provider (the local master key, or a cloud KMS). Exactly one is `primary` and wraps new
 * data keys; every `active` or `retired` one still unwraps what it wrapped.
 */
export const vaultKeys = pgTable('vault_keys', {
  id: text('id').primaryKey(),
  /** Which key provider wrapped it, e.g. 'local'. */
  provider: text('provider').notNull(),
  /** The provider's opaque wrapping of the KEK (its own format and associated data). */
  wrapped: text('wrapped').notNull(),
  status: text('status', { enum: ['primary', 'active', 'retired'] }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  /** When it stopped being primary. */
  demotedAt: bigint('demoted_at', { mode: 'number' }),
});

/** Small named values of the vault, e.g. the master key's key check value. */
export const vaultMeta = pgTable('vault_meta', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});

/**
 * A stored credential. The credential values themselves are only in secret_fields, each
 * encrypted under its own data key; this row holds what is not secret.
 */
export const secrets = pgTable(
  'secrets',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    type: text('type', { enum: ['bearer', 'api_key', 'basic', 'oauth2'] }).notNull(),
    /** api_key only: the header the key goes in. */
    headerName: text('header_name'),
    /** oauth2 only: where the refresh token is exchanged, and the client id used there. */
    tokenUrl: text('token_url'),
    clientId: text('client_id'),
    /** oauth2 only: how the client authenticates at the token endpoint (null: client_secret_post). */
    clientAuthMethod: text('client_auth_method', { enum: ['client_secret_post', 'client_secret_basic', 'none'] }),
    /** oauth2 only: when the stored access token expires (null: unknown, treated as valid until a 401). */
    expiresAt: bigint('expires_at', { mode: 'number' }),
    status: text('status', { enum: ['active', 'needs_reauthorization'] }).notNull(),
    /** Bumped on every change of the credential (PUT, refresh): readers detect a stale copy with it. */
    version: bigint('version', { mode: 'number' }).notNull().default(1),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }),
    refreshedAt: bigint('refreshed_at', { mode: 'number' }),
    /** oauth2 refresh lock, shared by every process on this database: holder and lease end. */
    lockOwner: text('lock_owner'),
    lockUntil: bigint('lock_until', { mode: 'number' }),
  },
  (t) => [index('secrets_user_idx').on(t.userId, t.createdAt, t.id)],
);

/**
 * One encrypted credential value: `field` is e.g. 'token', 'password', 'refresh_token'.
 * `ciphertext` is AES-256-GCM under a data key used for this value only; `wrapped_key` is
 * that data key wrapped by the KEK `kek_id`. Both are bound to (user, secret, field).
 */
export const secretFields = pgTable(
  'secret_fields',
  {
    secretId: text('secret_id')
      .notNull()
      .references(() => secrets.id, { onDelete: 'cascade' }),
    field: text('field').notNull(),
    kekId: text('kek_id')
      .notNull()
      .references(() => vaultKeys.id),
    wrappedKey: text('wrapped_key').notNull(),
    ciphertext: text('ciphertext').notNull(),
  },
  (t) => [primaryKey({ columns: [t.secretId, t.field] }), index('secret_fields_kek_idx').on(t.kekId)],
);

export const tools = pgTable(
  'tools',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    provider: text('provider').notNull(),
    /** JSON: the tool's `schema` object ({parameters}). */
    schema: text('schema').notNull(),
    /** JSON: the tool's `config` object. */
    config: text('config').notNull(),
    /** The referenced secret; a secret cannot be deleted while a tool refers to it. */
    secretId: text('secret_id').references(() => secrets.id),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('tools_user_idx').on(t.userId, t.createdAt, t.id), index('tools_secret_idx').on(t.secretId)],
);

/** What happened to a user's secrets and tools. Never holds a credential value. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    at: bigint('at', { mode: 'number' }).notNull(),
    /** e.g. 'secret.created', 'secret.used', 'secret.refreshed', 'tool.updated' */
    action: text('action').notNull(),
    outcome: text('outcome', { enum: ['success', 'failure'] }).notNull(),
    secretId: text('secret_id'),
    toolId: text('tool_id'),
    callId: text('call_id'),
    /** The end user a browser's client key named (`Client-Key <key>.<externalId>_...`); null for API keys and tokens. */
    externalId: text('external_id'),
    /** JSON object of non-secret facts (upstream status, error kind, duration). */
    detail: text('detail').notNull().default('{}'),
  },
  (t) => [index('audit_events_user_idx').on(t.userId, t.at, t.id)],
);

export type VaultKeyRow = typeof vaultKeys.$inferSelect;
export type SecretRow = typeof secrets.$inferSelect;
export type SecretFieldRow = typeof secretFields.$inferSelect;
export type ToolRow = typeof tools.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
