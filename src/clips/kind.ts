import type { Clock } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { CreateClipBody } from '../schemas/clips.ts';
import type { SpeakingDetails, SpeakingResult } from '../speaking/records.ts';
import type { ResourceRow, ResourceStore } from '../resources/store.ts';
import { resourceLifecycle, type Lifecycle, type ResourceKind } from '../resources/lifecycle.ts';
import { CLIP_JOB } from './deps.ts';
import { presentClip, type ClipView } from './present.ts';
import type { PendingVideos } from '../speaking/pending.ts';

/** A clip's own working fields (the `details` JSON of its resource row): a speaking record's, with its presenter. */
export interface ClipDetails extends SpeakingDetails {
  presenterId: string;
}

/** What a finished clip produced (the `result` JSON). */
export type ClipResult = SpeakingResult;

export interface Clip {
  row: ResourceRow;
  id: string;
  userId: string;
  req: CreateClipBody;
  details: ClipDetails;
  result: ClipResult | null;
}

export function readClip(row: ResourceRow): Clip {
  return {
    row,
    id: row.id,
    userId: row.userId,
    req: JSON.parse(row.request) as CreateClipBody,
    details: JSON.parse(row.details) as ClipDetails,
    result: row.result ? (JSON.parse(row.result) as ClipResult) : null,
  };
}

/** Clips as a resource kind: its cost depends on the length, so each create passes its credits. */
export function clipKind(media: Pick<MediaAccess, 'signedUrl'>, pending: Pick<PendingVideos, 'url'>): ResourceKind<ClipView> {
  return { name: 'clip', idPrefix: 'clp', cost: 1, jobKind: CLIP_JOB, present: (row) => presentClip(readClip(row), media, pending) };
}

export type ClipLifecycle = Lifecycle<ClipView>;

export const clipLifecycle = (resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>, pending: Pick<PendingVideos, 'url'>): ClipLifecycle =>
  resourceLifecycle(clipKind(media, pending), { resources, clock });
