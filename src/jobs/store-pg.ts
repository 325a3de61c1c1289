import type { PgDatabase } from '../db/pg/database.ts';
import type { JobQueue } from './store.ts';
import type { Clock, IdFactory } from '../clock.ts';

/** The PostgreSQL JobQueue: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgJobStore(_h: PgDatabase, _clock: Clock, _newId: IdFactory): JobQueue {
  throw new Error('JobQueue on PostgreSQL is not written yet');
}
