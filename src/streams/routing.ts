/**
 * Where a stream's request runs (docs/streams-across-processes.md): here when this process
 * holds the stream's peer; else at the process its record names (forward.ts), with the
 * caller's user id; else, for a stream whose record has ended (its owner closed it, or died
 * and stopped beating), the answer a closed stream gets here: 404, and success for its
 * owner's DELETE with its session. An agent's chat answer is spoken on a stream of another
 * process the same way (remote-speaker.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError, notFound } from '../errors.ts';
import type { Logger } from '../log.ts';
import { validate } from '../schemas/ajv.ts';
import { StreamAnswer, StreamIce, StreamSpeak } from './schemas.ts';
import type { StreamService } from './hub.ts';
import { OwnerUnreachable, type ForwardedVerb, type Forwarder, type StreamVerb } from './forward.ts';
import { sessionHash, type StreamRegistry } from './registry.ts';
import type { LiveStreamRecord } from './store.ts';
import { SESSION_ERROR } from './sessions.ts';
import type { StreamSpeaker } from './interface.ts';
import { createSpeakerRelay, remoteSpeaker } from './remote-speaker.ts';

export type StreamBody = Record<string, unknown>;
type Verb = (userId: string, streamId: string, agentId: string | undefined, raw: StreamBody) => Promise<unknown>;

/** The verbs on a stream this process holds: the stream and its session are checked before the body's other fields (a missing session_id is a SessionError). */
export function localVerbs(service: StreamService): Record<StreamVerb, Verb> {
  return {
    async sdp(userId, streamId, agentId, raw) {
      service.authorize(userId, streamId, raw.session_id, agentId);
      const body = validate(StreamAnswer, raw);
      return service.answer(userId, streamId, body.session_id, body.answer.sdp, agentId);
    },
    async ice(userId, streamId, agentId, raw) {
      service.authorize(userId, streamId, raw.session_id, agentId);
      const body = validate(StreamIce, raw);
      const candidate = typeof body.candidate === 'string' && body.candidate !== '' ? { candidate: body.candidate, sdpMid: body.sdpMid ?? null, sdpMLineIndex: body.sdpMLineIndex ?? null } : null;
      return service.ice(userId, streamId, body.session_id, candidate, agentId);
    },
    async speak(userId, streamId, agentId, raw) {
      service.authorize(userId, streamId, raw.session_id, agentId);
      const body = validate(StreamSpeak, raw);
      return service.speak(userId, streamId, body.session_id, body.script, agentId);
    },
    async interrupt(userId, streamId, agentId, raw) {
      return service.interrupt(userId, streamId, raw.session_id, agentId);
    },
    async delete(userId, streamId, agentId, raw) {
      return service.remove(userId, streamId, raw.session_id, agentId);
    },
  };
}

/** What a stream whose record has ended answers: its owner's DELETE with its session succeeds (idempotent); the rest is 404. */
function closedAnswer(verb: StreamVerb, r: LiveStreamRecord, raw: StreamBody): unknown {
  if (verb !== 'delete') throw notFound('stream');
  const given = typeof raw.session_id === 'string' ? Buffer.from(sessionHash(raw.session_id)) : undefined;
  const kept = Buffer.from(r.sessionHash);
  if (!given || given.length !== kept.length || !timingSafeEqual(given, kept)) throw new ApiError('SessionError', SESSION_ERROR);
  return { status: 'success' as const };
}

export function createStreamRouting(deps: { service: StreamService; registry: StreamRegistry; forwarder: Forwarder; log: Logger }) {
  const local = localVerbs(deps.service);
  const relay = createSpeakerRelay(deps.service);

  /** The record of a stream another live process holds for this user (and agent); 'here' when this process answers; throws 404 for another user's. */
  async function locate(userId: string, streamId: string, agentId: string | undefined): Promise<LiveStreamRecord | 'here'> {
    if (deps.service.holds(streamId)) return 'here';
    const r = await deps.registry.lookup(streamId);
    // Not another process's: this one answers as it does for an unknown or ended stream of its own.
    if (!r || r.ownerProcessId === deps.registry.processId) return 'here';
    if (r.userId !== userId || (agentId !== undefined && r.agentId !== agentId)) throw notFound('stream');
    return r;
  }

  /** Forwards to the owner; when it does not answer: the closed stream's answer if it is dead (stale heartbeat), else 503. */
  async function forward(verb: ForwardedVerb, r: LiveStreamRecord, userId: string, agentId: string | undefined, raw: StreamBody, closed: (r: LiveStreamRecord) => unknown): Promise<unknown> {
    try {
      return await deps.forwarder.forward(r.ownerUrl, r.id, verb, { user_id: userId, ...(agentId !== undefined ? { agent_id: agentId } : {}), body: raw });
    } catch (err) {
      if (!(err instanceof OwnerUnreachable)) throw err;
      deps.log.warn('live stream owner did not answer a forwarded request', { stream_id: r.id, owner_process_id: r.ownerProcessId, error: err.message });
      // Dead (its heartbeat stale too): the stream is closed. Else it may be restarting its listener, or the network is down: the client retries.
      const now = await deps.registry.lookup(r.id);
      if (now && now.endedAt !== null) return closed(now);
      throw new ApiError('ServiceUnavailableError', 'The API process holding this stream did not answer: try again in a few seconds');
    }
  }

  return {
    /** Runs `verb` where the stream is: here, at its owner, or as a closed stream. */
    async run(verb: StreamVerb, userId: string, streamId: string, agentId: string | undefined, raw: StreamBody): Promise<unknown> {
      const r = await locate(userId, streamId, agentId);
      if (r === 'here') return local[verb](userId, streamId, agentId, raw);
      if (r.endedAt !== null) return closedAnswer(verb, r, raw);
      return forward(verb, r, userId, agentId, raw, (ended) => closedAnswer(verb, ended, raw));
    },

    /** A request another process forwarded: run here, never forwarded again. */
    here(verb: ForwardedVerb, userId: string, streamId: string, agentId: string | undefined, raw: StreamBody): Promise<unknown> {
      return verb === 'speaker' ? relay.handle(userId, streamId, agentId, raw) : local[verb](userId, streamId, agentId, raw);
    },

    /** A speaker on the stream wherever it is (StreamHub.speaker): NotFoundError or SessionError as the owner answers them. */
    async speaker(userId: string, streamId: string, sessionId: string, opts: { agentId?: string } = {}): Promise<StreamSpeaker> {
      const r = await locate(userId, streamId, opts.agentId);
      if (r === 'here') return deps.service.speaker(userId, streamId, sessionId, opts);
      if (r.endedAt !== null) throw notFound('stream');
      const gone = () => {
        throw notFound('stream');
      };
      const opened = (await forward('speaker', r, userId, opts.agentId, { op: 'open', session_id: sessionId }, gone)) as { video_id?: unknown };
      if (typeof opened.video_id !== 'string') throw new ApiError('ServiceUnavailableError', 'The API process holding this stream could not answer: try again');
      return remoteSpeaker(opened.video_id, (op) => forward('speaker', r, userId, opts.agentId, op, gone), deps.log, { stream_id: streamId, owner_process_id: r.ownerProcessId });
    },
  };
}

export type StreamRouting = ReturnType<typeof createStreamRouting>;
