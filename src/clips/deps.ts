import type { Config } from '../config.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MediaAccess } from '../media/index.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { ClipSchemas } from './schemas.ts';
import type { VoiceCatalogue } from '../voices/contract.ts';
import type { PresenterCatalogue } from '../presenters/contract.ts';
import type { ClipLifecycle } from './kind.ts';
import type { PendingVideos } from '../speaking/pending.ts';

export interface ClipDeps {
  config: Config;
  lifecycle: ClipLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: ClipSchemas;
  queue: JobQueue;
  media: MediaAccess;
  presenters: PresenterCatalogue;
  /** The platform's voice catalogue (`Platform.voices`); undefined: no voice can speak here, text scripts get 503. */
  voices: VoiceCatalogue | undefined;
  /** The videos being rendered, as HLS playlists (`pending_url`). */
  pending: PendingVideos;
  /** The request's URLs are checked against the egress policy before anything is stored. */
  client: Pick<GuardedClient, 'check'>;
}

export const CLIP_JOB = 'clip.render';
