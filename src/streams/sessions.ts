/**
 * The live streams of this process and their sessions: who owns a stream, whether a caller's
 * session_id is its own, and which streams ended lately (an owner's late DELETE of one is a
 * success). Another user's stream is "not found"; a wrong session is a SessionError.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { StreamRenderSession } from '../compute/stream.ts';
import type { CompatibilityMode, StreamPeer } from './peer.ts';
import type { StreamSettings } from './settings.ts';
import { clientKeyHolder, createStreamLimits, holderOf } from './limits.ts';
import type { StreamSource } from './interface.ts';

export const SESSION_ERROR = 'missing or invalid session_id';

export interface CreateOptions {
  warmup: boolean;
  fluent: boolean;
  timeoutS: number;
  compatibility: CompatibilityMode;
  /** Opened through a client key: the key and its end user (`externalId`), whose own limits it counts against. */
  client?: StreamClient;
  /** The variant's path ('talks', 'clips', 'agents'), as the stream's record keeps it. */
  kind?: string;
}

/** The client key a stream was opened through, and its end user. */
export interface StreamClient {
  keyId: string;
  endUser: string;
}

/** One open stream: its peer, its render session and the state each job of the hub keeps on it. */
export interface LiveStream {
  id: string;
  userId: string;
  sessionId: string;
  source: StreamSource;
  opts: CreateOptions;
  peer: StreamPeer;
  /** Set once the renderer's preparation is done; `opening` settles then (undefined: it failed and the stream is closing). */
  session: StreamRenderSession | undefined;
  opening: Promise<StreamRenderSession | undefined>;
  workDir: string;
  state: 'offered' | 'connected' | 'closed';
  /** Settles when the SDP answer being applied is done (whether it worked or not). */
  answering: Promise<void> | undefined;
  idle: NodeJS.Timeout | undefined;
  /** Bumped by an interrupt: sentences synthesised for an older generation are dropped. */
  generation: number;
  /** Synthesis runs one piece at a time, in order. */
  chain: Promise<void>;
  /** Scripts handed to the renderer and not yet done. */
  speaking: Set<string>;
  /** Scripts whose speech failed: their later pieces are dropped. */
  failed: Set<string>;
  abort: AbortController;
  /** Speech heard on this stream so far, and the credits charged for it (one per started SECONDS_PER_CREDIT s of the total). */
  spokenMs: number;
  charged: number;
  /** The render session was started (the peer is up): speech handed to it plays. */
  mediaStarted: boolean;
}

/** What is kept of a stream once it has closed: enough to tell its owner's late DELETE from another user's. */
interface EndedStream {
  sessionId: string;
  agentId: string | undefined;
}

/** Ended streams remembered per owner, and owners remembered, so a late DELETE of one is a success (bounded: oldest forgotten first). */
const ENDED_PER_OWNER = 64;
const ENDED_OWNERS = 4_096;

export type Sessions = ReturnType<typeof createSessions>;

/**
 * `elsewhere`: the open streams of a holder in the other API processes (registry.ts), counted
 * with this process's own against the per-user, per-client-key and per-end-user limits; the
 * total stays this process's own.
 */
export function createSessions(settings: Pick<StreamSettings, 'perUser' | 'total' | 'perClientKey' | 'perEndUser'>, elsewhere: (holder: string) => number = () => 0) {
  const streams = new Map<string, LiveStream>();
  /**
   * Recently ended streams, by owner then stream id (both in insertion order, oldest first).
   * The agents SDK closes its peer first and DELETEs after; the stream has already ended
   * ("peer connection failed"), and its owner's DELETE must still succeed.
   */
  const ended = new Map<string, Map<string, EndedStream>>();
  const limits = createStreamLimits(settings, {
    open: () => streams.size,
    openOf: (holder) => elsewhere(holder) + [...streams.values()].filter((s) => holderOf(s.userId, s.opts.client) === holder || (s.opts.client && clientKeyHolder(s.opts.client) === holder)).length,
  });

  function remember(s: LiveStream): void {
    let mine = ended.get(s.userId);
    if (mine) ended.delete(s.userId);
    else mine = new Map();
    ended.set(s.userId, mine);
    mine.set(s.id, { sessionId: s.sessionId, agentId: s.source.agentId });
    if (mine.size > ENDED_PER_OWNER) mine.delete(mine.keys().next().value!);
    if (ended.size > ENDED_OWNERS) ended.delete(ended.keys().next().value!);
  }

  /** The user's open stream, else 404 (unknown, closed and other users' streams alike). */
  function find(userId: string, streamId: string, agentId?: string): LiveStream {
    const s = streams.get(streamId);
    if (!s || s.userId !== userId || (agentId !== undefined && s.source.agentId !== agentId)) throw new ApiError('NotFoundError', 'stream not found');
    return s;
  }

  return {
    /** Claims a place for a stream being created (429 over a limit); answers the release. */
    reserve: (userId: string, client?: StreamClient) => limits.reserve(userId, client),
    reserved: () => limits.reserved(),
    add(s: LiveStream): void {
      streams.set(s.id, s);
    },
    /** The stream is closing: it is no longer found, and its owner's late DELETE succeeds. */
    end(s: LiveStream): void {
      streams.delete(s.id);
      remember(s);
    },
    all: (): LiveStream[] => [...streams.values()],
    /** The open stream of this process with this id, whoever owns it. */
    local: (streamId: string): LiveStream | undefined => streams.get(streamId),

    /** The stream, after its session: a missing or different session_id is the SessionError the SDK matches. */
    withSession(userId: string, streamId: string, sessionId: unknown, agentId?: string): LiveStream {
      const s = find(userId, streamId, agentId);
      if (typeof sessionId !== 'string' || !sameSecret(sessionId, s.sessionId)) throw new ApiError('SessionError', SESSION_ERROR);
      return s;
    },

    /**
     * True when `streamId` is a stream its owner `userId` already saw end and `sessionId` is its
     * session (a wrong one is the SessionError); false when it is no such stream.
     */
    endedWithSession(userId: string, streamId: string, sessionId: unknown, agentId?: string): boolean {
      const gone = streams.has(streamId) ? undefined : ended.get(userId)?.get(streamId);
      if (!gone || (agentId !== undefined && gone.agentId !== agentId)) return false;
      if (typeof sessionId !== 'string' || !sameSecret(sessionId, gone.sessionId)) throw new ApiError('SessionError', SESSION_ERROR);
      return true;
    },
  };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
