import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Store } from '../db/client.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AnimationSchemas } from '../schemas/animations.ts';
import type { MediaAccess } from '../media/index.ts';

export interface AnimationDeps {
  config: Config;
  store: Store;
  clock: Clock;
  newId: IdFactory;
  schemas: AnimationSchemas;
  queue: JobQueue;
  media: MediaAccess;
}

export const RENDER_JOB = 'animation.render';

/** The bundled sample portrait (NASA, public domain), used when a request has no source_url. */
export const SAMPLE_SOURCE = fileURLToPath(new URL('../../assets/sample-source.png', import.meta.url));
/** Where each user's copy of the sample lives in their media store (shared by their animations). */
export const SAMPLE_SOURCE_KEY = 'samples/sample-source.png';
export const ANIMATION_COST = 1;
