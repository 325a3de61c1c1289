import type { Logger } from '../../log.ts';
import type { ResumableUploads } from './uploads.ts';

/** How often expired uploads are looked for. An expired upload is refused at once; this only frees its disk. */
export const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Removes expired uploads when the service starts and then every SWEEP_EVERY_MS, off the
 * request path; `stop()` waits for a sweep under way. A failed sweep is logged and retried
 * at the next tick.
 */
export function uploadSweeper(uploads: Pick<ResumableUploads, 'sweep'>, log: Logger, everyMs = SWEEP_EVERY_MS) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      try {
        const removed = await uploads.sweep();
        if (removed.length > 0) log.info('expired video uploads removed', { count: removed.length });
      } catch (err) {
        log.warn('video upload sweep failed', { error: (err as Error).message });
      }
    });
  };
  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
