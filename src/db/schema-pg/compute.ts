import { pgTable, text, bigint, index, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Remote compute (src/compute/remote/): render tasks handed to worker processes, and the
 * workers' tokens. Times are integer milliseconds since the epoch.
 */

export const computeTasks = pgTable(
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
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    maxAttempts: bigint('max_attempts', { mode: 'number' }).notNull(),
    /** The current claim: random, named by every call and signed into every file URL. */
    lease: text('lease'),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    /** compute_workers.id of the token that holds (or last held) the lease. */
    workerId: text('worker_id'),
    /** The name the worker process gave in its claim (several processes may share a token). */
    workerName: text('worker_name'),
    progressDone: bigint('progress_done', { mode: 'number' }),
    progressTotal: bigint('progress_total', { mode: 'number' }),
    /** The lease under which the result was uploaded; complete requires it to be the current one. */
    uploadedLease: text('uploaded_lease'),
    resultBytes: bigint('result_bytes', { mode: 'number' }),
    metadata: text('metadata'),
    faceIds: text('face_ids'),
    /** A render error kind (input at fault) or null (worker at fault, or lease expiry). */
    errorKind: text('error_kind'),
    error: text('error'),
    /** The worker's own render time, as it reported it on complete (benchmarks). */
    renderMs: bigint('render_ms', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    /** Time of the latest claim. */
    claimedAt: bigint('claimed_at', { mode: 'number' }),
    uploadedAt: bigint('uploaded_at', { mode: 'number' }),
    /** Time the job was told of the task's failure (it is told once; a retry then submits anew). */
    reportedAt: bigint('reported_at', { mode: 'number' }),
    /** Time the task reached done, failed or cancelled. */
    finishedAt: bigint('finished_at', { mode: 'number' }),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('compute_tasks_due_idx').on(t.status, t.createdAt), index('compute_tasks_job_idx').on(t.jobId)],
);

export const computeWorkers = pgTable(
  'compute_workers',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** HMAC-SHA256 of the token under deriveKey(master, 'worker-token-hash'); the token is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSeenAt: bigint('last_seen_at', { mode: 'number' }),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
  },
  (t) => [uniqueIndex('compute_workers_token_idx').on(t.tokenHash)],
);
