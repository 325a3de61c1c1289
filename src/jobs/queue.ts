/** The job queue's types, for domain code (the SQL lives in ./store.ts). */
export type { Job, JobQueue, EnqueueJob, JobView, JobStatus } from './store.ts';
