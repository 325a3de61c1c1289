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

export const animations = sqliteTable(
  'animations',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['created', 'started', 'done', 'error'] }).notNull(),
    /** The request body as accepted (JSON), the source of truth for what was asked. */
    request: text('request').notNull(),
    /** Resolved driver, e.g. bank://nostalgia/driver-03, or the driver URL. */
    driverResolved: text('driver_resolved').notNull(),
    /** Media-store key (in the owner's namespace) of the stored copy of the source image. */
    sourceKey: text('source_key'),
    /** Media-store key of the result, when it was written to the media store. */
    resultKey: text('result_key'),
    /** The result URL handed out when the result went to an external https destination. */
    resultExternalUrl: text('result_external_url'),
    metadata: text('metadata'),
    faceIds: text('face_ids'),
    error: text('error'),
    progressDone: integer('progress_done'),
    progressTotal: integer('progress_total'),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    modifiedAt: integer('modified_at').notNull(),
  },
  (t) => [index('animations_user_created_idx').on(t.userId, t.createdAt, t.id)],
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
