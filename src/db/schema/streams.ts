import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { users } from './core.ts';

/** Times are integer milliseconds since the epoch. docs/streams-across-processes.md describes the fields. */

/**
 * One live stream, as every API process sees it: the stream's WebRTC peer lives in one
 * process (its owner), which renews `heartbeat_at`; another process forwards a request for
 * the stream to `owner_url`, and ends the record (`end_reason`) when the heartbeat is stale.
 */
export const liveStreams = sqliteTable(
  'live_streams',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The variant's path: 'talks', 'clips' or 'agents'. */
    kind: text('kind').notNull(),
    /** Agent streams: the agent (chat answers are spoken only on its own streams). */
    agentId: text('agent_id'),
    /** sha256 of the stream's session_id (the session itself is never stored). */
    sessionHash: text('session_hash').notNull(),
    /** Who the stream counts against (src/streams/limits.ts `holderOf`). */
    holder: text('holder').notNull(),
    /** Opened through a client key: its id (its streams count together). */
    clientKeyId: text('client_key_id'),
    ownerProcessId: text('owner_process_id').notNull(),
    /** The owner's internal base URL (MIMIC_INTERNAL_URL) that other processes forward to. */
    ownerUrl: text('owner_url').notNull(),
    heartbeatAt: integer('heartbeat_at').notNull(),
    createdAt: integer('created_at').notNull(),
    endedAt: integer('ended_at'),
    endReason: text('end_reason'),
  },
  (t) => [index('live_streams_open_idx').on(t.endedAt, t.ownerProcessId), index('live_streams_user_idx').on(t.userId)],
);

export type LiveStreamRow = typeof liveStreams.$inferSelect;
