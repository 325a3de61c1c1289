import type { Clock } from '../clock.ts';
import { isoTime } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { PREVIEW_JOB } from '../clips/contract.ts';
import type { ResourceStore } from '../resources/store.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
import { Avatar as AvatarRecord, AvatarList, type AvatarView, type CreateAvatarBody } from './schemas.ts';

export const AVATAR_JOB = 'avatar.create';

/** One footage check as the record shows it. */
export interface FootageCheckStep {
  check: 'length' | 'resolution' | 'sound' | 'silent_ending' | 'idle_ending' | 'one_person' | 'facing_camera' | 'same_person';
  passed: boolean;
  measured: Record<string, unknown>;
  limit: Record<string, unknown>;
  note?: string;
}

export interface AvatarReview {
  state: 'pending' | 'approved' | 'rejected';
  reason: string;
  decidedAt?: number;
}

/** An avatar's working fields (the `details` JSON). */
export interface AvatarDetails {
  presenterId: string;
  driverId: string;
  consentId: string;
  /** The consent's language: the presenter's voice speaks it. */
  language: string;
  isGreenscreen: boolean;
  checks: FootageCheckStep[];
  review?: AvatarReview;
  /** Where the footage is silent and idle, and where it speaks (seconds), once the checks found them. */
  windows?: { idle: { fromSec: number; toSec: number }; speech: { fromSec: number; toSec: number } };
  /** Set once every check passed, or an operator approved (a retried job trains without checking again). */
  checked?: boolean;
}

/** The trained presenter (the `result` JSON); renaming the presenter amends `name`. */
export interface AvatarResult {
  name: string;
  voice: { type: string; voiceId: string; pitchHz: number | null; reason: string; cloned?: boolean };
  referenceSec: number;
  loopSec: number;
  size: number;
  /** Media keys (owner: the user). */
  keys: { image: string; thumbnail: string; preview: string; talking: string; idle: string };
  trainedAt: number;
}

export type AvatarTypes = { request: CreateAvatarBody; details: AvatarDetails; result: AvatarResult; view: AvatarView };

export type Avatar = ResourceRecord<AvatarTypes>;

/** Avatars as a resource kind: charged at creation (the settings' credits), refunded on error and on an operator's rejection. */
export const avatars = defineResource<AvatarTypes>({
  name: 'avatar',
  idPrefix: 'avt',
  cost: 0,
  extraStates: { active: ['validating'], final: ['rejected'], refundOn: ['rejected'] },
  // The interface allows up to 24 hours for an avatar; a run longer than this is retried.
  job: { kind: AVATAR_JOB, timeLimitMs: 6 * 60 * 60 * 1000, gaveUp: 'The avatar could not be checked and trained after several attempts' },
  http: {
    path: '/clips/avatars', record: AvatarRecord, list: AvatarList, removes: 'its presenter and their media',
    getSummary: 'Get an avatar, with each footage check as measured',
  },
});

export const readAvatar = avatars.read;

export function presentAvatar(a: Avatar, media: Pick<MediaAccess, 'signedUrl'>): AvatarView {
  const { row, req, details: d, result: r } = a;
  // A result's objects are stored before the avatar ends with it: a recorded key names a stored object.
  const url = (key: string | undefined) => (key ? media.signedUrl(row.userId, key) : undefined);
  const preview = url(r?.keys.preview), image = url(r?.keys.image), idle = url(r?.keys.idle);
  return {
    id: row.id,
    object: 'avatar',
    status: row.status as AvatarView['status'],
    name: r?.name ?? req.name,
    gender: req.gender,
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    owner_id: row.userId,
    created_by: row.userId,
    consent_id: d.consentId,
    presenter_id: d.presenterId,
    driver_id: d.driverId,
    config: { is_greenscreen: d.isGreenscreen },
    credits: row.credits,
    checks: d.checks.map((c) => ({ check: c.check, passed: c.passed, measured: c.measured, limit: c.limit, ...(c.note ? { note: c.note } : {}) })),
    ...(d.review ? { review: { state: d.review.state, reason: d.review.reason, ...(d.review.decidedAt ? { decided_at: isoTime(d.review.decidedAt) } : {}) } } : {}),
    ...(row.status === 'started' && row.progressDone !== null && row.progressTotal !== null ? { progress: { done: row.progressDone, total: row.progressTotal } } : {}),
    ...(row.startedAt ? { started_at: isoTime(row.startedAt) } : {}),
    ...(row.finishedAt ? { completed_at: isoTime(row.finishedAt) } : {}),
    ...(r ? { voice: { type: r.voice.type, voice_id: r.voice.voiceId, pitch_hz: r.voice.pitchHz, reason: r.voice.reason } } : {}),
    ...(preview ? { preview_url: preview } : {}),
    ...(image ? { image_url: image } : {}),
    ...(idle ? { idle_video_url: idle } : {}),
    ...(row.webhookUrl ? { webhook: row.webhookUrl } : {}),
    ...(row.error ? { error: JSON.parse(row.error) as { kind: string; description: string } } : {}),
  };
}

/**
 * Whether an avatar will change no more, for its live events (`settled` of the resource kit):
 * a `done` avatar's talking preview is rendered after it, by the clips module's preview job
 * queued with the ending, so it is settled once the preview is stored, or once no preview job
 * is on its way (its attempts failed, or there was no voice to render one with). Then a page
 * that followed it shows the presenter with a preview that plays at once.
 */
export const avatarSettled = (deps: { media: Pick<MediaAccess, 'exists'>; queue: Pick<JobQueue, 'hasUnfinished'> }) => async (a: Avatar): Promise<boolean> => {
  if (a.row.status !== 'done' || !a.result) return true;
  if (await deps.media.exists(a.userId, a.result.keys.talking)) return true;
  return !(await deps.queue.hasUnfinished(PREVIEW_JOB, a.details.presenterId));
};

export type AvatarLifecycle = Resource<AvatarTypes>;

/** The lifecycle alone (the operator's review commands; the cost only matters at creation, and a review never creates). */
export const avatarLifecycle = (resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>) =>
  avatars.lifecycle(resources, clock, (a) => presentAvatar(a, media));
