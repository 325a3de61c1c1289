/**
 * A stream's session timeout: each request and each script's end restarts it; a stream left
 * without activity for `session_timeout` seconds closes. Speech playing is activity.
 */
import type { Close } from './teardown.ts';
import type { LiveStream } from './sessions.ts';

export const DEFAULT_SESSION_TIMEOUT_S = 300;

export type ArmIdle = (s: LiveStream) => void;

export function createIdleTimer(close: Close): ArmIdle {
  const armIdle: ArmIdle = (s) => {
    if (s.idle) clearTimeout(s.idle);
    if (s.state === 'closed') return;
    s.idle = setTimeout(() => {
      s.idle = undefined;
      // Speech still playing is activity: wait for its end (speech queued before media flows is not playing).
      if (s.speaking.size > 0 && s.mediaStarted) armIdle(s);
      else void close(s, 'timeout');
    }, s.opts.timeoutS * 1000);
    s.idle.unref?.();
  };
  return armIdle;
}
