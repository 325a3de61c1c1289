import type { Config } from '../config.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../log.ts';
import type { MediaAccess } from '../media/index.ts';
import type { ConsentSchemas } from './schemas.ts';
import type { FaceAnalyzer } from '../footage/faces.ts';
import type { SpeechRecogniser } from '../footage/recognition/interface.ts';
import type { ConsentLifecycle } from './kind.ts';
import type { ConsentSettings } from './settings.ts';

export interface ConsentDeps {
  config: Config;
  settings: ConsentSettings;
  lifecycle: ConsentLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: ConsentSchemas;
  queue: JobQueue;
  media: MediaAccess;
  client: GuardedClient;
  log: Logger;
  /** The one face analyser of the process (a worker thread), shared with the avatars' footage checks. */
  faces: FaceAnalyzer;
  /** The speech recognisers on this machine (Debian's pocketsphinx for English when installed). */
  recognisers: readonly SpeechRecogniser[];
}
