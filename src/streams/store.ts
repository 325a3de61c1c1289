/**
 * The live streams' records (table live_streams): which process owns each open stream and
 * where to reach it, renewed by the owner's heartbeat, ended with a reason. Every API process
 * reads them: to forward a request for a stream it does not hold, to end the streams of an
 * owner that stopped beating, and to count a user's streams across processes.
 */
import type { Store } from '../db/client.ts';
import type { Clock } from '../clock.ts';

export interface LiveStreamRecord {
  id: string;
  userId: string;
  kind: string;
  agentId: string | null;
  sessionHash: string;
  holder: string;
  clientKeyId: string | null;
  ownerProcessId: string;
  ownerUrl: string;
  heartbeatAt: number;
  createdAt: number;
  endedAt: number | null;
  endReason: string | null;
}

export type NewLiveStream = Omit<LiveStreamRecord, 'heartbeatAt' | 'createdAt' | 'endedAt' | 'endReason'>;

/** An open stream of another process, as the limits count it. */
export interface OpenElsewhere {
  holder: string;
  clientKeyId: string | null;
}

/**
 * What every dialect's store does (test/stores/contracts/live-streams.ts). Times are the
 * database's: SQLite's are the process clock (one machine), PostgreSQL's its own clock, so
 * processes on several machines agree on what is stale.
 */
export interface LiveStreamStore {
  /** Records a stream that has just opened (heartbeat now). */
  open(stream: NewLiveStream): Promise<void>;
  get(id: string): Promise<LiveStreamRecord | undefined>;
  /** Renews the heartbeat of this process's open streams; answers their ids (a stream another process ended is not among them). */
  beat(ownerProcessId: string): Promise<string[]>;
  /** Ends an open stream with a reason; false when it had ended already (its first reason stays). */
  end(id: string, reason: string): Promise<boolean>;
  /** Ends every open stream of another process than `self` whose heartbeat is older than `staleMs`, with `reason`; answers them. */
  endStale(self: string, staleMs: number, reason: string): Promise<{ id: string; ownerProcessId: string }[]>;
  /** A stream's heartbeat is older than `staleMs` (its owner stopped beating); false when fresh or unknown. */
  isStale(id: string, staleMs: number): Promise<boolean>;
  /** The open streams other processes own. */
  openElsewhere(ownerProcessId: string): Promise<OpenElsewhere[]>;
  /** Forgets records that ended more than `olderThanMs` ago; answers how many. */
  prune(olderThanMs: number): Promise<number>;
}

type Raw = {
  id: string; user_id: string; kind: string; agent_id: string | null; session_hash: string; holder: string; client_key_id: string | null;
  owner_process_id: string; owner_url: string; heartbeat_at: number; created_at: number; ended_at: number | null; end_reason: string | null;
};

export const COLUMNS = 'id, user_id, kind, agent_id, session_hash, holder, client_key_id, owner_process_id, owner_url, heartbeat_at, created_at, ended_at, end_reason';

export const toRecord = (r: Raw): LiveStreamRecord => ({
  id: r.id, userId: r.user_id, kind: r.kind, agentId: r.agent_id, sessionHash: r.session_hash, holder: r.holder, clientKeyId: r.client_key_id,
  ownerProcessId: r.owner_process_id, ownerUrl: r.owner_url, heartbeatAt: r.heartbeat_at, createdAt: r.created_at, endedAt: r.ended_at, endReason: r.end_reason,
});

export function createSqliteLiveStreamStore({ sqlite }: Store, clock: Clock): LiveStreamStore {
  const insert = sqlite.prepare(
    `INSERT INTO live_streams (id, user_id, kind, agent_id, session_hash, holder, client_key_id, owner_process_id, owner_url, heartbeat_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const select = sqlite.prepare<[string], Raw>(`SELECT ${COLUMNS} FROM live_streams WHERE id = ?`);
  const renew = sqlite.prepare<[number, string], string>('UPDATE live_streams SET heartbeat_at = ? WHERE owner_process_id = ? AND ended_at IS NULL RETURNING id').pluck();
  const endOne = sqlite.prepare<[number, string, string]>('UPDATE live_streams SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL');
  const endOld = sqlite.prepare<[number, string, number, string], { id: string; owner_process_id: string }>(
    'UPDATE live_streams SET ended_at = ?, end_reason = ? WHERE ended_at IS NULL AND heartbeat_at < ? AND owner_process_id <> ? RETURNING id, owner_process_id',
  );
  const stale = sqlite.prepare<[string, number], number>('SELECT 1 FROM live_streams WHERE id = ? AND heartbeat_at < ?').pluck();
  const elsewhere = sqlite.prepare<[string], { holder: string; client_key_id: string | null }>(
    'SELECT holder, client_key_id FROM live_streams WHERE ended_at IS NULL AND owner_process_id <> ?',
  );
  const forget = sqlite.prepare<[number]>('DELETE FROM live_streams WHERE ended_at IS NOT NULL AND ended_at < ?');

  return {
    async open(s) {
      const now = clock.now();
      insert.run(s.id, s.userId, s.kind, s.agentId, s.sessionHash, s.holder, s.clientKeyId, s.ownerProcessId, s.ownerUrl, now, now);
    },
    async get(id) {
      const r = select.get(id);
      return r ? toRecord(r) : undefined;
    },
    async beat(owner) {
      return renew.all(clock.now(), owner);
    },
    async end(id, reason) {
      return endOne.run(clock.now(), reason, id).changes > 0;
    },
    async endStale(self, staleMs, reason) {
      const now = clock.now();
      return endOld.all(now, reason, now - staleMs, self).map((r) => ({ id: r.id, ownerProcessId: r.owner_process_id }));
    },
    async isStale(id, staleMs) {
      return stale.get(id, clock.now() - staleMs) === 1;
    },
    async openElsewhere(owner) {
      return elsewhere.all(owner).map((r) => ({ holder: r.holder, clientKeyId: r.client_key_id }));
    },
    async prune(olderThanMs) {
      return forget.run(clock.now() - olderThanMs).changes;
    },
  };
}
