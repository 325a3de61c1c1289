import type { Clock } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { CreateClipBody } from './schemas.ts';
import type { RenderMetadata } from '../compute/interface.ts';
import type { ResourceRow, ResourceStore } from '../resources/store.ts';
import { resourceLifecycle, type Lifecycle, type ResourceKind } from '../resources/lifecycle.ts';
import { CLIP_JOB } from './deps.ts';
import { presentClip, type ClipView } from './present.ts';
import type { PendingVideos } from './pending.ts';

/** The voice that will speak a text script, fixed at creation (after the fallback policy). */
export interface ClipVoice {
  type: string;
  voiceId: string;
  fallback?: { requested: { type: string; voiceId: string }; reason: string };
}

/** A clip's own working fields (the `details` JSON of its resource row). */
export interface ClipDetails {
  presenterId: string;
  voice: ClipVoice | null;
  /** Seconds of speech the charge was computed from (estimated for a text, measured for a stored audio). */
  chargedSeconds: number;
  /** Set once the speech exists: its media key (the WAV spoken, or the given audio) and its length. */
  audioKey?: string;
  speechSec?: number;
}

/** What a finished clip produced (the `result` JSON). */
export interface ClipResult {
  resultKey: string | null;
  resultExternalUrl: string | null;
  /** Media key of the speech as spoken (a 16-bit WAV for a text, the given file for an audio). */
  audioKey: string;
  durationSec: number;
  speechSec: number;
  metadata: RenderMetadata;
}

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
