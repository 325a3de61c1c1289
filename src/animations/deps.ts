import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AnimationSchemas } from './schemas.ts';
import type { MediaAccess } from '../media/index.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { AnimationLifecycle } from './kind.ts';

export interface AnimationDeps {
  config: Config;
  /** The resource lifecycle of the `animation` kind (src/resources/), over the resource store. */
  lifecycle: AnimationLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: AnimationSchemas;
  /** The job queue (its `enqueue` runs inside the resource store's create; a delete cancels the job, src/resources/define.ts). */
  queue: JobQueue;
  media: MediaAccess;
  /** The request's URLs are checked against the egress policy before anything is stored. */
  client: Pick<GuardedClient, 'check'>;
}

export const RENDER_JOB = 'animation.render';

/** The bundled sample portrait (NASA, public domain), used when a request has no source_url. */
export const SAMPLE_SOURCE = fileURLToPath(new URL('../../assets/sample-source.png', import.meta.url));
/** Where each user's copy of the sample lives in their media store (shared by their animations). */
export const SAMPLE_SOURCE_KEY = 'samples/sample-source.png';
export const ANIMATION_COST = 1;
