import type { Clock } from '../clock.ts';
import type { Lifecycle } from './lifecycle.ts';

/** What a rendering resource does with its progress (its finished video: src/media/deliver.ts). */

/**
 * Records render progress at most every 500 ms (and always the last frame). Progress is
 * advisory: a failed write is reported to `onLost`, never fails the render.
 */
export function progressRecorder(lifecycle: Pick<Lifecycle<unknown>, 'progress'>, clock: Clock, id: string, onLost: () => void) {
  let last = 0;
  return (done: number, total: number): void => {
    const t = clock.now();
    if (t - last < 500 && done < total) return;
    last = t;
    lifecycle.progress(id, done, total).catch(onLost);
  };
}
