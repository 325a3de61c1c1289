import type { PgDatabase } from '../db/pg/database.ts';
import type { LeaseLock } from './lock-store.ts';

/** The PostgreSQL LeaseLock: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgLeaseLock(_h: PgDatabase, table: { table: string; id: string; owner: string; until: string }): LeaseLock {
  throw new Error('LeaseLock on PostgreSQL is not written yet');
}
