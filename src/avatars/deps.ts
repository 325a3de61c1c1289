import type { Config } from '../config.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../log.ts';
import type { MediaAccess } from '../media/index.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import type { AvatarSchemas } from './schemas.ts';
import type { FaceAnalyzer } from '../footage/faces.ts';
import type { VoiceCatalogue } from '../voices/contract.ts';
import type { ConsentsForAvatars } from '../consents/contract.ts';
import type { AvatarLifecycle } from './kind.ts';
import type { AvatarSettings } from './settings.ts';

export interface AvatarDeps {
  config: Config;
  settings: AvatarSettings;
  lifecycle: AvatarLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: AvatarSchemas;
  queue: JobQueue;
  media: MediaAccess;
  client: GuardedClient;
  log: Logger;
  backend: ComputeBackend;
  consents: ConsentsForAvatars;
  faces: FaceAnalyzer;
  /** The voice catalogue; undefined: no voice here (the presenter gets the language's default id). */
  voices: VoiceCatalogue | undefined;
}
