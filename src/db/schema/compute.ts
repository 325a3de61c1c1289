import { sqliteTable, text, integer, index, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Remote compute (src/compute/remote/): render tasks handed to worker processes, and the
 * workers' tokens. Times are integer milliseconds since the epoch.
 */

export const computeTasks = sqliteTable(
  'compute_tasks',
  {
    id: text('id').primaryKey(),
    /** The job whose render this is; a newer task of the same job cancels the older ones. */
    jobId: text('job_id').notNull(),
    /** What the worker is asked to do (docs/compute-protocol.md), e.g. animation.render. */
    kind: text('kind').notNull().default('animation.render'),
    status: text('status', { enum: ['queued', 'leased', 'done', 'failed', 'cancelled'] }).notNull(),
    /** The render request with the API host's local input paths (JSON, see remote/protocol.ts). */
    request: text('request').notNull(),
    /** Where render() expects the finished video (in the job's work folder). */
    outputPath: text('output_path').notNull(),
    /** Claims so far; the current claim is attempt number `attempts`. */
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    /** The current claim: random, named by every call and signed into every file URL. */
    lease: text('lease'),
    leaseUntil: integer('lease_until'),
    /** compute_workers.id of the token that holds (or last held) the lease. */
    workerId: text('worker_id'),
    /** The name the worker process gave in its claim (several processes may share a token). */
    workerName: text('worker_name'),
    progressDone: integer('progress_done'),
    progressTotal: integer('progress_total'),
    /** The lease under which the result was uploaded; complete requires it to be the current one. */
    uploadedLease: text('uploaded_lease'),
    resultBytes: integer('result_bytes'),
    metadata: text('metadata'),
    faceIds: text('face_ids'),
    /** A render error kind (input at fault) or null (worker at fault, or lease expiry). */
    errorKind: text('error_kind'),
    error: text('error'),
    /** The worker's own render time, as it reported it on complete (benchmarks). */
    renderMs: integer('render_ms'),
    createdAt: integer('created_at').notNull(),
    /** Time of the latest claim. */
    claimedAt: integer('claimed_at'),
    uploadedAt: integer('uploaded_at'),
    /** Time the job was told of the task's failure (it is told once; a retry then submits anew). */
    reportedAt: integer('reported_at'),
    /** Time the task reached done, failed or cancelled. */
    finishedAt: integer('finished_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('compute_tasks_due_idx').on(t.status, t.createdAt), index('compute_tasks_job_idx').on(t.jobId)],
);

export const computeWorkers = sqliteTable(
  'compute_workers',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** HMAC-SHA256 of the token under deriveKey(master, 'worker-token-hash'); the token is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [uniqueIndex('compute_workers_token_idx').on(t.tokenHash)],
);
