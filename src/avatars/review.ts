import type { Clock } from '../clock.ts';
import type { ResourceStore } from '../resources/store.ts';
import type { MediaAccess } from '../media/index.ts';
import { AVATAR_JOB, readAvatar, type AvatarDetails, type AvatarLifecycle } from './kind.ts';

/**
 * The identity review queue: avatars whose footage face scored in the review band against the
 * consent video wait in `validating` until an operator compares the two and approves
 * (training starts) or rejects (`rejected`, refunded) them (`mimic avatars review`).
 */
export interface AvatarReviewDeps {
  lifecycle: Pick<AvatarLifecycle, 'getById' | 'listInState' | 'setDetails' | 'advance' | 'finish'>;
  /** Reads the avatar's consent. */
  resources: Pick<ResourceStore, 'getById'>;
  media: Pick<MediaAccess, 'localFile'>;
  clock: Clock;
  maxAttempts: number;
}

export async function pendingAvatarReviews(deps: AvatarReviewDeps, limit = 100) {
  const rows = await deps.lifecycle.listInState('validating', limit);
  const out = [];
  for (const row of rows) {
    const { req, details: d } = readAvatar(row);
    if (d.review?.state !== 'pending') continue;
    const consent = await deps.resources.getById(d.consentId);
    const consentVideo = consent ? (JSON.parse(consent.details) as { videoKey?: string }).videoKey : undefined;
    out.push({
      avatar_id: row.id, user_id: row.userId, name: req.name, consent_id: d.consentId, reason: d.review.reason,
      same_person: d.checks.find((c) => c.check === 'same_person')?.measured ?? null,
      footage_url: req.source_url,
      consent_video_file: consentVideo ? await deps.media.localFile(row.userId, consentVideo) : null,
    });
  }
  return out;
}

/** Approve: the footage is the consent's person; training is queued. Reject: `rejected`, credits back, webhook sent. */
export async function decideAvatarReview(deps: AvatarReviewDeps, id: string, decision: 'approve' | 'reject', reason: string): Promise<'approved' | 'rejected' | 'not-pending'> {
  const row = await deps.lifecycle.getById(id);
  if (!row || row.status !== 'validating') return 'not-pending';
  const { details: d } = readAvatar(row);
  if (d.review?.state !== 'pending') return 'not-pending';
  const now = deps.clock.now();
  const review = { state: decision === 'approve' ? 'approved' as const : 'rejected' as const, reason: reason || d.review.reason, decidedAt: now };
  if (decision === 'approve') {
    const details: AvatarDetails = { ...d, review, checked: true };
    const moved = await deps.lifecycle.advance(id, { from: 'validating', to: 'validating', details, webhookUrl: row.webhookUrl ?? undefined, job: { kind: AVATAR_JOB, maxAttempts: deps.maxAttempts } });
    return moved ? 'approved' : 'not-pending';
  }
  await deps.lifecycle.setDetails(id, { ...d, review });
  return (await deps.lifecycle.finish(id, null, 'rejected')) ? 'rejected' : 'not-pending';
}
