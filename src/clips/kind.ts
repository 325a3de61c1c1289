import { Clip as ClipRecord, ClipList, type CreateClipBody } from './schemas.ts';
import type { RenderMetadata } from '../compute/interface.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
import { CLIP_JOB } from './deps.ts';
import type { ClipView } from './present.ts';

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
