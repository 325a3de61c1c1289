import type { PgDatabase } from '../../db/pg/database.ts';
import type { ComputeTasks, ComputeTasksOptions } from './task-store.ts';
import type { Clock, IdFactory } from '../../clock.ts';

/** The PostgreSQL ComputeTasks: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgComputeTasks(_h: PgDatabase, _clock: Clock, _newId: IdFactory, _opts: ComputeTasksOptions): ComputeTasks {
  throw new Error('ComputeTasks on PostgreSQL is not written yet');
}
