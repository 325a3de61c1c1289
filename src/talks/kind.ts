import type { Clock, IdFactory } from '../clock.ts';
import type { Config } from '../config.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MediaAccess } from '../media/index.ts';
import { Talk as TalkRecord, TalkList, type CreateTalkBody, type TalkSchemas } from './schemas.ts';
import type { VoiceCatalogue } from '../voices/contract.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
import type { SpeakingDetails, SpeakingResult } from '../speaking/records.ts';
import type { PendingVideos } from '../speaking/pending.ts';
import type { TalkView } from './present.ts';
import type { GuardedClient } from '../egress/client.ts';

export const TALK_JOB = 'talk.render';

/** A talk's working fields: a clip's, without a presenter (the photo is the request's source_url). */
export type TalkDetails = SpeakingDetails;

/** A talk's result is a speaking result, as a clip's. */
export type TalkTypes = { request: CreateTalkBody; details: TalkDetails; result: SpeakingResult; view: TalkView };

export type Talk = ResourceRecord<TalkTypes>;

/** Talks as a resource kind: like clips, the cost depends on the length, so each create passes its credits. */
export const talks = defineResource<TalkTypes>({
  name: 'talk',
  idPrefix: 'tlk',
  cost: 1,
  job: { kind: TALK_JOB, timeLimitMs: 2 * 60 * 60 * 1000, gaveUp: 'The talk could not be rendered after several attempts' },
  http: { record: TalkRecord, list: TalkList },
});

export const readTalk = talks.read;

export type TalkLifecycle = Resource<TalkTypes>;

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
