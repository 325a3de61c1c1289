/**
 * An agent's chat answer spoken on a stream another API process holds
 * (docs/streams-across-processes.md): the chat's process opens a speaker at the owner
 * (the session and the agent checked there) and sends it each sentence, in order, over the
 * internal route; the owner keeps the speakers it opened for others until their `end`.
 */
import { ApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { StreamSpeaker } from './interface.ts';
import type { StreamService } from './hub.ts';

/** A speaker nobody has used for this long is ended (its chat's process died mid-answer). */
const IDLE_SPEAKER_MS = 5 * 60_000;
/** Speakers held for other processes at once; the oldest is ended past it. */
const MAX_SPEAKERS = 1_000;

type SpeakerOp = { op: 'open'; session_id?: unknown } | { op: 'say'; video_id: string; text: string } | { op: 'send'; video_id: string; subject: string; payload?: string } | { op: 'end'; video_id: string };

function opOf(raw: Record<string, unknown>): SpeakerOp {
  const str = (k: string) => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  const videoId = str('video_id');
  if (raw.op === 'open') return { op: 'open', session_id: raw.session_id };
  if (videoId !== undefined && raw.op === 'say' && str('text') !== undefined) return { op: 'say', video_id: videoId, text: str('text')! };
  if (videoId !== undefined && raw.op === 'send' && str('subject') !== undefined) return { op: 'send', video_id: videoId, subject: str('subject')!, ...(str('payload') !== undefined ? { payload: str('payload')! } : {}) };
  if (videoId !== undefined && raw.op === 'end') return { op: 'end', video_id: videoId };
  throw new ApiError('BadRequestError', 'Invalid request body: not a speaker operation');
}

/** The owner's side: the speakers it opened for other processes, by video id. */
export function createSpeakerRelay(service: StreamService) {
  const held = new Map<string, { userId: string; streamId: string; speaker: StreamSpeaker; idle: NodeJS.Timeout }>();
  const drop = (videoId: string) => {
    const h = held.get(videoId);
    if (!h) return;
    held.delete(videoId);
    clearTimeout(h.idle);
    h.speaker.end();
  };
  const arm = (videoId: string) => {
    const idle = setTimeout(() => drop(videoId), IDLE_SPEAKER_MS);
    idle.unref();
    return idle;
  };

  return {
    /** One operation of a remote speaker, for `userId` on `streamId`. */
    async handle(userId: string, streamId: string, agentId: string | undefined, raw: Record<string, unknown>): Promise<unknown> {
      const op = opOf(raw);
      if (op.op === 'open') {
        const speaker = service.speaker(userId, streamId, typeof op.session_id === 'string' ? op.session_id : '', agentId !== undefined ? { agentId } : {});
        if (held.size >= MAX_SPEAKERS) drop(held.keys().next().value!);
        held.set(speaker.videoId, { userId, streamId, speaker, idle: arm(speaker.videoId) });
        return { video_id: speaker.videoId };
      }
      const h = held.get(op.video_id);
      if (!h || h.userId !== userId || h.streamId !== streamId) throw new ApiError('NotFoundError', 'speaker not found');
      clearTimeout(h.idle);
      h.idle = arm(op.video_id);
      if (op.op === 'say') h.speaker.say(op.text);
      else if (op.op === 'send') h.speaker.send(op.subject, op.payload);
      else drop(op.video_id);
      return { status: 'success' as const };
    },
  };
}

/**
 * The chat's side: a speaker whose calls go to the owner one after another, in order. A call
 * that fails stops the rest (as guardedSpeaker does for a stream that closed here).
 */
export function remoteSpeaker(videoId: string, send: (op: Record<string, unknown>) => Promise<unknown>, log: Pick<Logger, 'warn'>, context: Record<string, unknown>): StreamSpeaker {
  let chain: Promise<void> = Promise.resolve();
  let broken = false;
  const queue = (op: Record<string, unknown>) => {
    chain = chain.then(async () => {
      if (broken) return;
      try {
        await send({ ...op, video_id: videoId });
      } catch (err) {
        broken = true;
        log.warn('agent chat: the stream of another process stopped taking speech', { ...context, step: op.op, error: err instanceof Error ? err.message : 'unknown' });
      }
    });
  };
  return {
    videoId,
    say: (text) => queue({ op: 'say', text }),
    send: (subject, payload) => queue({ op: 'send', subject, ...(payload !== undefined ? { payload } : {}) }),
    end: () => queue({ op: 'end' }),
  };
}
