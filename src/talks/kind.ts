import type { Clock, IdFactory } from '../clock.ts';
import type { Config } from '../config.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MediaAccess } from '../media/index.ts';
import type { CreateTalkBody, TalkSchemas } from '../schemas/talks.ts';
import type { ResourceRow, ResourceStore } from '../resources/store.ts';
import type { VoiceCatalogue } from '../voices/catalogue.ts';
import { resourceLifecycle, type Lifecycle, type ResourceKind } from '../resources/lifecycle.ts';
import type { SpeakingDetails, SpeakingResult } from '../speaking/records.ts';
import type { PendingVideos } from '../speaking/pending.ts';
import { presentTalk, type TalkView } from './present.ts';
import type { GuardedClient } from '../egress/client.ts';

export const TALK_JOB = 'talk.render';

/** A talk's working fields: a clip's, without a presenter (the photo is the request's source_url). */
export type TalkDetails = SpeakingDetails;

export interface Talk {
  row: ResourceRow;
  id: string;
  userId: string;
  req: CreateTalkBody;
  details: TalkDetails;
  /** What a finished talk produced: a clip's result. */
  result: SpeakingResult | null;
}

export function readTalk(row: ResourceRow): Talk {
  const parse = <T>(text: string) => JSON.parse(text) as T;
  return { row, id: row.id, userId: row.userId, req: parse(row.request), details: parse(row.details), result: row.result ? parse(row.result) : null };
}

export type TalkLifecycle = Lifecycle<TalkView>;

/** Talks as a resource kind: like clips, the cost depends on the length, so each create passes its credits. */
export function talkLifecycle(resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>, pending: Pick<PendingVideos, 'url'>): TalkLifecycle {
  const kind: ResourceKind<TalkView> = { name: 'talk', idPrefix: 'tlk', cost: 1, jobKind: TALK_JOB, present: (row) => presentTalk(readTalk(row), media, pending) };
  return resourceLifecycle(kind, { resources, clock });
}

export interface TalkDeps {
  config: Config;
  lifecycle: TalkLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: TalkSchemas;
  queue: JobQueue;
  media: MediaAccess;
  /** The platform's voice catalogue; undefined: no voice can speak here, text scripts get 503. */
  voices: VoiceCatalogue | undefined;
  /** The videos being rendered, as HLS playlists (`pending_url`). */
  pending: PendingVideos;
  /** The request's URLs are checked against the egress policy before anything is stored. */
  client: Pick<GuardedClient, 'check'>;
}
