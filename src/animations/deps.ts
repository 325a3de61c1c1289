import type { Config } from '../config.ts';
import type { Store } from '../db/client.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AnimationSchemas } from '../schemas/animations.ts';

/** What the animation verbs need of the media store (the local store satisfies it). */
export interface MediaAccess {
  /** Local path of an object, or null when it does not exist. */
  find(owner: string, key: string): string | null;
  /** Stores a local file under the owner's key. */
  putFile(owner: string, key: string, file: string, contentType: string): Promise<void>;
  removePrefix(owner: string, prefix: string): Promise<void>;
  /** A time-limited signed URL of the object under MIMIC_PUBLIC_URL. */
  signedUrl(owner: string, key: string): string;
  /** Object key (in the caller's namespace) of a storage-scheme URL, or null when malformed. */
  keyOfStorageUrl(url: string): string | null;
}

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
export const ANIMATION_COST = 1;
