/**
 * This process's side of the live streams' records (table live_streams,
 * docs/streams-across-processes.md): it records each stream it opens with its own id and
 * internal URL, renews their heartbeat every `heartbeatMs`, ends each record with the reason
 * the stream closed, ends the records of owners whose heartbeat is older than `staleMs` (they
 * died), closes a stream of its own whose record another process ended, and counts the open
 * streams of the other processes for the limits.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log.ts';
import type { LiveStreamRecord, LiveStreamStore } from './store.ts';
import { clientKeyHolder } from './limits.ts';

/** Ended records are kept this long (what a stream's record says of its end), then forgotten. */
const KEEP_ENDED_MS = 24 * 60 * 60 * 1000;
/** The records are pruned every this many heartbeats. */
const PRUNE_EVERY = 600;

export interface RegistryDeps {
  store: LiveStreamStore;
  /** This process's id, new at each start. */
  processId: string;
  /** Where the other processes reach this one (MIMIC_INTERNAL_URL). */
  ownerUrl: string;
  heartbeatMs: number;
  staleMs: number;
  log: Logger;
  /** Streams of this process whose record another process ended (it took this process for dead): they close. */
  lost(streamId: string): void;
}

/** What is recorded of a stream when it opens. */
export interface OpenedStream {
  id: string;
  userId: string;
  kind: string;
  agentId: string | undefined;
  sessionId: string;
  holder: string;
  clientKeyId: string | undefined;
}

export const sessionHash = (sessionId: string): string => createHash('sha256').update(sessionId).digest('hex');

export function createStreamRegistry(deps: RegistryDeps) {
  const { store, processId } = deps;
  const staleReason = `its API process stopped answering (no heartbeat for ${Math.round(deps.staleMs / 100) / 10} s)`;
  /** Streams of this process whose record is written (and not ended by it). */
  const recorded = new Set<string>();
  /** The other processes' open streams per holder, as of the last refresh. */
  let elsewhere = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let beats = 0;
  let ticking: Promise<void> | undefined;

  /** Ends the records of owners that stopped beating, then counts the other processes' open streams. */
  async function refresh(): Promise<void> {
    const ended = await store.endStale(processId, deps.staleMs, staleReason);
    for (const e of ended) deps.log.warn('live stream ended: its process stopped', { stream_id: e.id, owner_process_id: e.ownerProcessId });
    const counts = new Map<string, number>();
    const add = (holder: string) => counts.set(holder, (counts.get(holder) ?? 0) + 1);
    for (const r of await store.openElsewhere(processId)) {
      add(r.holder);
      if (r.clientKeyId) add(clientKeyHolder({ keyId: r.clientKeyId, endUser: '' }));
    }
    elsewhere = counts;
  }

  async function tick(): Promise<void> {
    const mine = [...recorded];
    const alive = new Set(await store.beat(processId));
    for (const id of mine) {
      if (alive.has(id) || !recorded.has(id)) continue;
      recorded.delete(id);
      deps.log.warn('live stream ended by another process (this one missed its heartbeats)', { stream_id: id });
      deps.lost(id);
    }
    await refresh();
    if (++beats % PRUNE_EVERY === 0) await store.prune(KEEP_ENDED_MS);
  }

  return {
    processId,
    /** Records a stream this process has just opened. */
    async opened(s: OpenedStream): Promise<void> {
      await store.open({
        id: s.id, userId: s.userId, kind: s.kind, agentId: s.agentId ?? null, sessionHash: sessionHash(s.sessionId), holder: s.holder,
        clientKeyId: s.clientKeyId ?? null, ownerProcessId: processId, ownerUrl: deps.ownerUrl,
      });
      recorded.add(s.id);
    },

    /** The stream closed here: its record ends with `reason` (a failure is logged, and the record goes stale). */
    async ended(streamId: string, reason: string): Promise<void> {
      if (!recorded.delete(streamId)) return;
      try {
        await store.end(streamId, reason);
      } catch (err) {
        deps.log.error('live stream record not ended', { stream_id: streamId, error: err instanceof Error ? err.message : String(err) });
      }
    },

    /**
     * Another process's stream as its record stands now: a live record whose owner stopped
     * beating is ended first (so the answer is the closed stream's). Undefined: no such record.
     */
    async lookup(streamId: string): Promise<LiveStreamRecord | undefined> {
      const r = await store.get(streamId);
      if (!r || r.endedAt !== null || r.ownerProcessId === processId) return r;
      if (!(await store.isStale(streamId, deps.staleMs))) return r;
      await store.end(streamId, staleReason);
      return store.get(streamId);
    },

    /** Brings the other processes' counts up to date (before a create checks the limits). */
    refresh,

    /** Open streams of `holder` (limits.ts `holderOf` or `clientKeyHolder`) in the other processes, as of the last refresh. */
    openElsewhere: (holder: string): number => elsewhere.get(holder) ?? 0,

    start(): void {
      if (timer) return;
      timer = setInterval(() => {
        if (ticking) return;
        ticking = tick()
          .catch((err: unknown) => deps.log.error('live streams heartbeat failed', { error: err instanceof Error ? err.message : String(err) }))
          .finally(() => (ticking = undefined));
      }, deps.heartbeatMs);
      timer.unref();
    },

    /** Stops beating (the streams are closed, and their records ended, by the hub's stop). */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await ticking;
    },
  };
}

export type StreamRegistry = ReturnType<typeof createStreamRegistry>;
