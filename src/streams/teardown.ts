/**
 * Closing a stream: it leaves the open streams at once (its owner's late DELETE still
 * succeeds), its speech stops, and its peer, render session and scratch folder go.
 */
import { rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../log.ts';
import type { LiveStream, Sessions } from './sessions.ts';

/** How long closing a stream waits for its peer and render session before it moves on. */
const CLOSE_WAIT_MS = 5_000;

export type Close = (s: LiveStream, reason: string) => Promise<void>;

/** `recordEnd`: the stream's record (registry.ts) says it ended, and why; it never throws. */
export function createTeardown(sessions: Sessions, log: Logger, recordEnd: (streamId: string, reason: string) => Promise<void>) {
  const close: Close = async (s, reason) => {
    if (s.state === 'closed') return;
    s.state = 'closed';
    sessions.end(s);
    if (s.idle) clearTimeout(s.idle);
    s.idle = undefined;
    s.abort.abort();
    s.generation++;
    log.info('stream closed', { stream_id: s.id, reason });
    // In parallel with the peer's close: a slow database must not hold the media up.
    const recorded = recordEnd(s.id, reason);
    // A peer or a render session that never answers must not hold a DELETE or a shutdown: they get CLOSE_WAIT_MS.
    const ended = await Promise.race([Promise.allSettled([s.session?.close(), s.peer.close()]).then(() => true), delay(CLOSE_WAIT_MS).then(() => false)]);
    if (!ended) log.warn('stream teardown still running; left behind', { stream_id: s.id, wait_ms: CLOSE_WAIT_MS });
    await rm(s.workDir, { recursive: true, force: true });
    await recorded;
  };

  return {
    close,
    /** Every open stream closes (the server is stopping). */
    async stop(): Promise<void> {
      await Promise.all(sessions.all().map((s) => close(s, 'server stopping')));
    },
  };
}
