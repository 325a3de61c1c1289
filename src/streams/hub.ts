/**
 * The live streams of this API process: each one a werift peer (src/streams/peer.ts) and a
 * render session of the `StreamRenderer`, held in memory. A stream is sticky to the process
 * that created it (docs/streams.md); nothing of it is in SQLite except the credits its speech
 * is charged. Every verb here takes the caller's user id and the stream id; another user's
 * stream is "not found", a wrong session is a SessionError.
 *
 * The hub composes the stream's jobs, each in its own file: sessions.ts (the open streams,
 * their owners and session ids), opening.ts (create and SDP answer), speech-queue.ts (scripts,
 * speakers, interrupt), credits.ts, timeouts.ts (the session timeout), events.ts (the data
 * channel's messages) and teardown.ts (closing).
 */
import { ApiError } from '../errors.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { StreamRenderer } from '../compute/stream.ts';
import type { InputFileDeps } from '../media/input-file.ts';
import type { SpeakingVoices } from '../speaking/voices.ts';
import type { UserStore } from '../users/contract.ts';
import type { StreamScriptBody } from './schemas.ts';
import type { IceCandidate } from './peer.ts';
import type { StreamSettings } from './settings.ts';
import type { StreamSource, StreamSpeaker } from './interface.ts';
import { createSessions, type CreateOptions } from './sessions.ts';
import { createTeardown } from './teardown.ts';
import { createIdleTimer } from './timeouts.ts';
import { createStreamCredits } from './credits.ts';
import { createSpeechQueue } from './speech-queue.ts';
import { createStreamEvents } from './events.ts';
import { createOpening } from './opening.ts';
import { holderOf } from './limits.ts';
import type { StreamRegistry } from './registry.ts';

export interface HubDeps {
  settings: StreamSettings;
  /** Undefined: this build has no stream renderer, and creating a stream is a 503. */
  renderer: StreamRenderer | undefined;
  voices: SpeakingVoices | undefined;
  users: Pick<UserStore, 'get' | 'addCredits'>;
  input: InputFileDeps;
  /** Scratch folders of the streams live under it (removed when a stream closes). */
  workRoot: string;
  clock: Clock;
  newId: IdFactory;
  log: Logger;
  /** The streams' records: each stream opened here is recorded, and its record ends when it closes. */
  registry: StreamRegistry;
}

export interface StreamStats {
  streams: number;
  timers: number;
  channels: number;
  reserved: number;
}

export function createStreamService(deps: HubDeps) {
  const { registry } = deps;
  const sessions = createSessions(deps.settings, registry.openElsewhere);
  const teardown = createTeardown(sessions, deps.log, registry.ended);
  const { close } = teardown;
  const armIdle = createIdleTimer(close);
  const credits = createStreamCredits(deps.users);
  const speech = createSpeechQueue({ voices: deps.voices, input: deps.input, newId: deps.newId, log: deps.log, armIdle });
  const events = createStreamEvents({ charge: credits.charge, armIdle, close, interrupt: speech.interrupt, log: deps.log });
  const opening = createOpening({ ...deps, sessions, events, armIdle, close });

  return {
    /** Checks the stream and its session before the body's other fields (so a missing session_id is a SessionError). */
    authorize(userId: string, streamId: string, sessionId: unknown, agentId?: string): void {
      sessions.withSession(userId, streamId, sessionId, agentId);
    },

    /** This process holds the stream's peer. */
    holds: (streamId: string): boolean => sessions.local(streamId) !== undefined,

    async create(userId: string, source: () => Promise<StreamSource>, opts: CreateOptions) {
      // The user's streams in the other processes count too (and those of a dead process end first).
      await registry.refresh();
      const created = await opening.open(userId, source, opts);
      const s = sessions.local(created.id);
      // Closed already (its preparation failed at once): there is nothing to record.
      if (!s) return created;
      try {
        await registry.opened({
          id: s.id, userId, kind: opts.kind ?? 'streams', agentId: s.source.agentId, sessionId: s.sessionId, holder: holderOf(userId, opts.client), clientKeyId: opts.client?.keyId,
        });
      } catch (err) {
        await close(s, 'not recorded');
        throw err;
      }
      // It closed while being recorded: its record must not stay open.
      if (s.state === 'closed') await registry.ended(s.id, 'closed while opening');
      return created;
    },

    /** Its record was ended by another process (this one missed its heartbeats): the stream closes here too. */
    lost(streamId: string): void {
      const s = sessions.local(streamId);
      if (s) void close(s, 'ended by another process');
    },

    async answer(userId: string, streamId: string, sessionId: unknown, sdp: string, agentId?: string) {
      const s = sessions.withSession(userId, streamId, sessionId, agentId);
      if (s.state !== 'offered') throw new ApiError('ConflictError', 'This stream already has its answer');
      const applied = opening.answer(s, sdp);
      s.answering = applied.then(
        () => undefined,
        () => undefined,
      );
      return applied;
    },

    async ice(userId: string, streamId: string, sessionId: unknown, candidate: IceCandidate | null, agentId?: string) {
      const s = sessions.withSession(userId, streamId, sessionId, agentId);
      armIdle(s);
      try {
        await s.peer.addCandidate(candidate);
      } catch {
        throw new ApiError('BadRequestError', 'Invalid request body: candidate is not an ICE candidate of this stream', [{ field: 'candidate', message: 'is not a candidate line' }]);
      }
      return { status: 'success' as const };
    },

    async speak(userId: string, streamId: string, sessionId: unknown, script: StreamScriptBody, agentId?: string) {
      const s = sessions.withSession(userId, streamId, sessionId, agentId);
      // A script racing the client's own SDP answer (both in flight) waits for the answer.
      if (s.state === 'offered' && s.answering) await s.answering;
      if (s.state !== 'connected') throw new ApiError('ConflictError', 'This stream is not connected yet: post the SDP answer first (…/sdp)');
      await credits.require(userId);
      armIdle(s);
      return speech.speak(s, userId, script);
    },

    interrupt(userId: string, streamId: string, sessionId: unknown, agentId?: string) {
      speech.interrupt(sessions.withSession(userId, streamId, sessionId, agentId));
      return { status: 'success' as const };
    },

    async remove(userId: string, streamId: string, sessionId: unknown, agentId?: string) {
      // Deleting what its owner already saw end is a success (idempotent); another user's stream stays "not found".
      if (sessions.endedWithSession(userId, streamId, sessionId, agentId)) return { status: 'success' as const };
      await close(sessions.withSession(userId, streamId, sessionId, agentId), 'deleted');
      return { status: 'success' as const };
    },

    speaker(userId: string, streamId: string, sessionId: string, opts: { agentId?: string } = {}): StreamSpeaker {
      return speech.speaker(sessions.withSession(userId, streamId, sessionId, opts.agentId));
    },

    stats(): StreamStats {
      const all = sessions.all();
      return { streams: all.length, timers: all.filter((s) => s.idle !== undefined).length, channels: all.reduce((n, s) => n + s.peer.channels, 0), reserved: sessions.reserved() };
    },

    stop: teardown.stop,
  };
}

export type StreamService = ReturnType<typeof createStreamService>;
