import { Clip as ClipRecord, ClipList, type CreateClipBody } from './schemas.ts';
import type { SpeakingDetails, SpeakingResult } from '../speaking/records.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
import { CLIP_JOB } from './deps.ts';
import type { ClipView } from './present.ts';

/** A clip's own working fields (the `details` JSON of its resource row): a speaking record's, with its presenter. */
export interface ClipDetails extends SpeakingDetails {
  presenterId: string;
}

/** What a finished clip produced (the `result` JSON). */
export type ClipResult = SpeakingResult;

export type ClipTypes = { request: CreateClipBody; details: ClipDetails; result: ClipResult; view: ClipView };

export type Clip = ResourceRecord<ClipTypes>;

/** Clips as a resource kind: its cost depends on the length, so each create passes its credits. */
export const clips = defineResource<ClipTypes>({
  name: 'clip',
  idPrefix: 'clp',
  cost: 1,
  job: { kind: CLIP_JOB, timeLimitMs: 2 * 60 * 60 * 1000, gaveUp: 'The clip could not be rendered after several attempts' },
  http: { record: ClipRecord, list: ClipList },
});

export const readClip = clips.read;

export type ClipLifecycle = Resource<ClipTypes>;
