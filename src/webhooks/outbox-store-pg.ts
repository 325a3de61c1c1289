import type { PgDatabase } from '../db/pg/database.ts';
import { createOutboxStore, type OutboxStore } from './outbox-store.ts';
import { onDialect, type Database } from '../db/database.ts';
import type { IdFactory } from '../clock.ts';

/** The PostgreSQL OutboxStore: the same contract as the SQLite one (test/stores/contracts/). Not written yet. */
export function createPgOutboxStore(_h: PgDatabase, _newId: IdFactory): OutboxStore {
  throw new Error('OutboxStore on PostgreSQL is not written yet');
}

/** The OutboxStore on the database's dialect. */
export const outboxStoreOn = (database: Database, newId: IdFactory): OutboxStore =>
  onDialect(database, { sqlite: (h) => createOutboxStore(h, newId), postgres: (h) => createPgOutboxStore(h, newId) });
