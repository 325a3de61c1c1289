import type { Clock } from '../clock.ts';
import { isoTime } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { ResourceStore } from '../resources/store.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
import { Consent as ConsentRecord, ConsentList, type ConsentView } from './schemas.ts';

export const CONSENT_JOB = 'consent.verify';

/** How long a consent's challenge may be answered (the interface's "Consent validity"). */
export const CONSENT_TTL_MS = 30 * 60 * 1000;

/** One verification step as the record shows it. */
export interface VerificationStep {
  check: 'decodes' | 'sound' | 'one_face' | 'facing_camera' | 'speech_length' | 'words';
  passed: boolean;
  measured: Record<string, unknown>;
  limit: Record<string, unknown>;
  note?: string;
}

export interface ConsentReview {
  state: 'pending' | 'approved' | 'rejected';
  reason: string;
  decidedAt?: number;
}

/** A consent's working fields (the `details` JSON of its resource row). */
export interface ConsentDetails {
  language: string;
  /** The statement with `[user name]` in it and the passcode filled in. */
  text: string;
  passcode: string[];
  expiresAt: number;
  /** From the upload on. */
  name?: string;
  sourceUrl?: string;
  uploadedAt?: number;
  steps: VerificationStep[];
  review?: ConsentReview;
  /** Media keys (owner: the user) of what verification kept. */
  videoKey?: string;
  thumbnailKey?: string;
  /** Face descriptors of the frames that showed one face (JSON), for the avatar's identity check. */
  facesKey?: string;
}

/** What a verified consent keeps (the `result` JSON). */
export interface ConsentResult {
  verifiedAt: number;
}

export type ConsentTypes = { request: { language: string }; details: ConsentDetails; result: ConsentResult; view: ConsentView };

export type Consent = ResourceRecord<ConsentTypes>;

/** Consents as a resource kind: free; no job at creation, the `consent.verify` job is queued by the upload. */
export const consents = defineResource<ConsentTypes>({
  name: 'consent',
  idPrefix: 'cns',
  cost: 0,
  extraStates: { active: ['validating'] },
  job: { kind: CONSENT_JOB, atCreation: false, timeLimitMs: 20 * 60 * 1000, gaveUp: 'The consent video could not be verified after several attempts' },
  http: { record: ConsentRecord, list: ConsentList, removes: 'its stored video', getSummary: 'Get a consent, with each verification step as measured' },
});

export const readConsent = consents.read;

/** A challenge nobody answered in time: it can never be used (shown as `error` from then on). */
export const isExpired = (c: Consent, now: number): boolean => c.row.status === 'created' && now > c.details.expiresAt;

export const EXPIRED = (c: Consent) => ({
  kind: 'ConsentExpiredError',
  description: `The consent expired at ${isoTime(c.details.expiresAt)}, 30 minutes after it was created, before a video was uploaded; create a new one`,
});

export function presentConsent(c: Consent, media: Pick<MediaAccess, 'signedUrl'>, now: number): ConsentView {
  const { row, details: d } = c;
  // A key is recorded as its object is stored (verify.ts): a recorded key names a stored object.
  const url = (key: string | undefined) => (key ? media.signedUrl(row.userId, key) : null);
  const expired = isExpired(c, now);
  const error = expired ? EXPIRED(c) : row.error ? (JSON.parse(row.error) as { kind: string; description: string }) : undefined;
  return {
    id: row.id,
    object: 'consent',
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    created_by: row.userId,
    owner_id: row.userId,
    language: d.language,
    text: d.text,
    passcode: [...d.passcode],
    expires_at: isoTime(d.expiresAt),
    status: (expired ? 'error' : row.status) as ConsentView['status'],
    name: d.name ?? null,
    video_url: url(d.videoKey),
    thumbnail_url: url(d.thumbnailKey),
    ...(c.result ? { verified_at: isoTime(c.result.verifiedAt) } : {}),
    verification: {
      steps: d.steps.map((s) => ({ check: s.check, passed: s.passed, measured: s.measured, limit: s.limit, ...(s.note ? { note: s.note } : {}) })),
      ...(d.review ? { review: { state: d.review.state, reason: d.review.reason, ...(d.review.decidedAt ? { decided_at: isoTime(d.review.decidedAt) } : {}) } } : {}),
    },
    used_by: row.claimedBy,
    ...(row.webhookUrl ? { webhook: row.webhookUrl } : {}),
    ...(error ? { error } : {}),
  };
}

export type ConsentLifecycle = Resource<ConsentTypes>;

/** The lifecycle alone (the operator's review commands). */
export const consentLifecycle = (resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>) =>
  consents.lifecycle(resources, clock, (c) => presentConsent(c, media, clock.now()));
