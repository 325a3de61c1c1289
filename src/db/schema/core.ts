import { sqliteTable, text, integer, index, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Times are integer milliseconds since the epoch; the API renders them as ISO 8601. */

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  name: text('name'),
  credits: integer('credits').notNull().default(0),
  /** JSON array of permission names, e.g. ["stitch"]. */
  permissions: text('permissions').notNull().default('[]'),
  createdAt: integer('created_at').notNull(),
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** HMAC-SHA256 of the key under a key derived from the master key; the key itself is never stored. */
    hash: text('hash').notNull(),
    /** The first characters of the key, enough for an operator to tell keys apart. */
    prefix: text('prefix').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.hash), index('api_keys_user_idx').on(t.userId)],
);

/**
 * Every asynchronous resource (animations now; clips, consents, avatars next) in one table:
 * the lifecycle columns are shared, a kind's own fields live in `details` and `result` (JSON).
 * `finished_at` is null while the resource can still change: every lifecycle update is
 * conditional on it, so a record is finished, failed or refunded at most once.
 */
export const resources = sqliteTable(
  'resources',
  {
    id: text('id').primaryKey(),
    /** The resource kind, e.g. 'animation'; also the `object` and the webhook event prefix. */
    kind: text('kind').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** created, started, done, error, or an extra state the kind declares. */
    status: text('status').notNull(),
    /** The request body as accepted (JSON), the source of truth for what was asked. */
    request: text('request').notNull(),
    /** The kind's own working fields (JSON), e.g. an animation's resolved driver and stored source key. */
    details: text('details').notNull(),
    /** The kind's result fields (JSON) once done. */
    result: text('result'),
    /** {kind, description} (JSON) when it ended in error. */
    error: text('error'),
    /** Where the final state is announced; null for none. */
    webhookUrl: text('webhook_url'),
    /** Credits charged at creation; given back when it fails or is deleted before it finishes. */
    credits: integer('credits').notNull(),
    progressDone: integer('progress_done'),
    progressTotal: integer('progress_total'),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    modifiedAt: integer('modified_at').notNull(),
    /** When it reached a final state; null while it may still change. */
    finishedAt: integer('finished_at'),
    /**
     * The resource that used this one up (an avatar that used a consent), set once in the
     * claiming resource's creating transaction and cleared when that one fails or is deleted
     * before it finishes; null while it is free.
     */
    claimedBy: text('claimed_by'),
  },
  (t) => [index('resources_user_kind_created_idx').on(t.userId, t.kind, t.createdAt, t.id), index('resources_claimed_by_idx').on(t.claimedBy)],
);

export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    resourceId: text('resource_id').notNull(),
    userId: text('user_id').notNull(),
    /** `waiting`: parked on a compute task (or any key in waiting_on); due again at run_at or when woken. */
    status: text('status', { enum: ['queued', 'running', 'waiting', 'done', 'failed', 'cancelled'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    runAt: integer('run_at').notNull(),
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    lastError: text('last_error'),
    /** What the job waits on (a compute task id); cleared by the wake, see src/jobs/README.md. */
    waitingOn: text('waiting_on'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('jobs_due_idx').on(t.status, t.runAt), index('jobs_resource_idx').on(t.resourceId)],
);

/**
 * Data migrations that ran (src/db/data-migrations.ts): code that rewrites stored rows with
 * what only the running service has (the vault's decrypted values, say), once each.
 */
export const dataMigrations = sqliteTable('data_migrations', {
  name: text('name').primaryKey(),
  /** JSON: what it did (counts only, never a value). */
  report: text('report').notNull(),
  appliedAt: integer('applied_at').notNull(),
});
