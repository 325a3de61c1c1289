import type { PgDatabase } from '../db/pg/database.ts';
import { statement } from '../db/pg/tx.ts';
import { onDialect, type Database } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import { COLUMNS, createSqliteLiveStreamStore, toRecord, type LiveStreamStore } from './store.ts';

/** The database's clock in milliseconds (one value per statement): processes on several machines agree on what is stale. */
const NOW = '(extract(epoch from now()) * 1000)::bigint';

const insert = statement(
  'live_streams_open',
  `INSERT INTO live_streams (id, user_id, kind, agent_id, session_hash, holder, client_key_id, owner_process_id, owner_url, heartbeat_at, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, ${NOW}, ${NOW})`,
);
const select = statement('live_streams_get', `SELECT ${COLUMNS} FROM live_streams WHERE id = $1`);
const renew = statement('live_streams_beat', `UPDATE live_streams SET heartbeat_at = ${NOW} WHERE owner_process_id = $1 AND ended_at IS NULL RETURNING id`);
const endOne = statement('live_streams_end', `UPDATE live_streams SET ended_at = ${NOW}, end_reason = $2 WHERE id = $1 AND ended_at IS NULL RETURNING id`);
const endOld = statement(
  'live_streams_end_stale',
  `UPDATE live_streams SET ended_at = ${NOW}, end_reason = $2 WHERE ended_at IS NULL AND heartbeat_at < ${NOW} - $1::bigint AND owner_process_id <> $3 RETURNING id, owner_process_id`,
);
const stale = statement('live_streams_is_stale', `SELECT 1 FROM live_streams WHERE id = $1 AND heartbeat_at < ${NOW} - $2::bigint`);
const elsewhere = statement('live_streams_elsewhere', 'SELECT holder, client_key_id FROM live_streams WHERE ended_at IS NULL AND owner_process_id <> $1');
const forget = statement('live_streams_prune', `DELETE FROM live_streams WHERE ended_at IS NOT NULL AND ended_at < ${NOW} - $1::bigint`);

/** The live streams' records on PostgreSQL: every time is the database's clock; each end is one conditional UPDATE. */
export function createPgLiveStreamStore({ pool }: PgDatabase): LiveStreamStore {
  return {
    async open(s) {
      await insert(pool, [s.id, s.userId, s.kind, s.agentId, s.sessionHash, s.holder, s.clientKeyId, s.ownerProcessId, s.ownerUrl]);
    },
    async get(id) {
      const r = (await select(pool, [id])).rows[0];
      return r ? toRecord(r as Parameters<typeof toRecord>[0]) : undefined;
    },
    async beat(owner) {
      return (await renew<{ id: string }>(pool, [owner])).rows.map((r) => r.id);
    },
    async end(id, reason) {
      return ((await endOne(pool, [id, reason])).rowCount ?? 0) > 0;
    },
    async endStale(self, staleMs, reason) {
      return (await endOld<{ id: string; owner_process_id: string }>(pool, [staleMs, reason, self])).rows.map((r) => ({ id: r.id, ownerProcessId: r.owner_process_id }));
    },
    async isStale(id, staleMs) {
      return (await stale(pool, [id, staleMs])).rows.length > 0;
    },
    async openElsewhere(owner) {
      return (await elsewhere<{ holder: string; client_key_id: string | null }>(pool, [owner])).rows.map((r) => ({ holder: r.holder, clientKeyId: r.client_key_id }));
    },
    async prune(olderThanMs) {
      return (await forget(pool, [olderThanMs])).rowCount ?? 0;
    },
  };
}

/** The LiveStreamStore on the database's dialect (SQLite's times from `clock`). */
export const liveStreamStoreOn = (database: Database, clock: Clock): LiveStreamStore =>
  onDialect(database, { sqlite: (h) => createSqliteLiveStreamStore(h, clock), postgres: createPgLiveStreamStore });
