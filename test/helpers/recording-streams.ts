import { ApiError } from '../../src/errors.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule } from '../../src/platform/module.ts';
import { provide } from '../../src/platform/service-key.ts';
import { STREAMS } from '../../src/streams/contract.ts';
import type { StreamHub, StreamSpeaker } from '../../src/streams/interface.ts';

/**
 * A test double of the streams module's hub: streams are opened by the test (no WebRTC), and
 * every speaker call lands in `log` as `say:<sentence>`, `send:<subject>:<payload>` or `end`,
 * in order, beside whatever else the test writes there (e.g. `model:end`), so a test checks
 * the order of events, never their timing.
 */
export interface RecordingStreams {
  hub: StreamHub;
  log: string[];
  /** An open stream of this user, with its session, belonging to the agent; `gone`: its speaker throws on each call (a stream closed mid-answer). */
  open(userId: string, streamId: string, sessionId: string, agentId: string, opts?: { gone?: boolean }): void;
  /** Resolves when `log` has an entry matching `test` (rejects after `ms`, so a test fails instead of hanging). */
  waitFor(test: (entry: string) => boolean, ms?: number): Promise<void>;
}

/** The service's modules with this hub as the streams module, in its place: pass it as the harness's `modules`. */
export function modulesWithStreams(hub: StreamHub) {
  const double = defineModule({ name: 'streams', provides: [STREAMS], create: () => ({ provides: [provide(STREAMS, hub)] }) });
  return [...MODULES.filter((m) => m.name !== 'streams'), double];
}

export function recordingStreams(): RecordingStreams {
  const streams = new Map<string, { userId: string; sessionId: string; agentId: string; gone: boolean }>();
  const log: string[] = [];
  const waiters: { test: (e: string) => boolean; resolve: () => void }[] = [];
  const push = (entry: string) => {
    log.push(entry);
    for (const w of [...waiters]) {
      if (w.test(entry)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  let videos = 0;
  const hub: StreamHub = {
    streamRoutes: () => [],
    async speaker(userId, streamId, sessionId, opts): Promise<StreamSpeaker> {
      const stream = streams.get(streamId);
      if (!stream || stream.userId !== userId || (opts?.agentId !== undefined && opts.agentId !== stream.agentId)) throw new ApiError('NotFoundError', 'Stream not found');
      // The real hub answers SessionError; the catalogue of this branch has no such kind yet.
      if (sessionId !== stream.sessionId) throw new ApiError('BadRequestError', 'missing or invalid session_id');
      const record = (entry: string) => {
        if (stream.gone) throw new ApiError('NotFoundError', 'Stream not found');
        push(entry);
      };
      return {
        videoId: `vid_${++videos}`,
        say: (sentence) => record(`say:${sentence}`),
        send: (subject, payload) => record(payload === undefined ? `send:${subject}` : `send:${subject}:${payload}`),
        end: () => record('end'),
      };
    },
  };
  return {
    hub,
    log,
    open: (userId, streamId, sessionId, agentId, opts) => void streams.set(streamId, { userId, sessionId, agentId, gone: opts?.gone ?? false }),
    waitFor(test, ms = 20_000) {
      if (log.some(test)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no log entry as expected within ${ms} ms; log: ${JSON.stringify(log)}`)), ms);
        waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}
