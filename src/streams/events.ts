/**
 * The data channel's events both ways: what the renderer reports becomes `stream/…` messages
 * to the client (and charges for speech heard), and the client's `stream/interrupt` message
 * interrupts the stream.
 */
import type { Logger } from '../log.ts';
import type { StreamEvent } from '../compute/stream.ts';
import type { LiveStream } from './sessions.ts';
import type { Close } from './teardown.ts';
import type { ArmIdle } from './timeouts.ts';
import type { StreamCredits } from './credits.ts';

/** Sends `subject` or `subject:{json}` on the stream's data channel, unless it is closed. */
export function send(s: LiveStream, subject: string, payload?: unknown): void {
  if (s.state === 'closed') return;
  s.peer.send(payload === undefined ? subject : `${subject}:${JSON.stringify(payload)}`);
}

export interface EventDeps {
  charge: StreamCredits['charge'];
  armIdle: ArmIdle;
  close: Close;
  interrupt: (s: LiveStream) => void;
  log: Logger;
}

export function createStreamEvents(deps: EventDeps) {
  return {
    /** An event of the stream's render session. */
    onEvent(s: LiveStream, e: StreamEvent): void {
      // Speech heard is paid for even when the stream was closed under it (DELETE, timeout, the peer leaving).
      if (e.type === 'done') deps.charge(s, e.spokenMs).catch((err) => deps.log.error('stream credits not charged', { stream_id: s.id, error: String(err) }));
      if (s.state === 'closed') return;
      switch (e.type) {
        case 'ready':
          send(s, 'stream/ready');
          return;
        case 'started':
          send(s, 'stream/started', { metadata: { videoId: e.videoId } });
          return;
        case 'done':
          s.speaking.delete(e.videoId);
          send(s, 'stream/done', { metadata: { videoId: e.videoId }, ...(e.interrupted ? { interrupted: true } : {}) });
          deps.armIdle(s);
          return;
        case 'error':
          send(s, 'stream/error', { kind: e.kind, description: e.description, ...(e.videoId ? { metadata: { videoId: e.videoId } } : {}) });
          void deps.close(s, `renderer error ${e.kind}`);
          return;
      }
    },

    /** A message of the client on the data channel. */
    onMessage(s: LiveStream, text: string): void {
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      if (msg && typeof msg === 'object' && (msg as { type?: unknown }).type === 'stream/interrupt') deps.interrupt(s);
    },
  };
}

export type StreamEvents = ReturnType<typeof createStreamEvents>;
