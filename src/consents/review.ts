import type { Clock } from '../clock.ts';
import type { ConsentLifecycle, ConsentDetails } from './kind.ts';
import { readConsent } from './kind.ts';

/**
 * The operator review queue: consents whose words no recogniser here can check (a language
 * without an offline recogniser, or none installed) wait in `validating` with a pending
 * review until an operator watches the video and approves or rejects it
 * (`mimic consents review`).
 */
export interface ReviewDeps {
  lifecycle: Pick<ConsentLifecycle, 'getById' | 'listInState' | 'setDetails' | 'finish' | 'fail'>;
  clock: Clock;
}

export interface PendingReview {
  consent_id: string;
  user_id: string;
  language: string;
  name: string;
  /** The statement the person had to read, with the name and the passcode. */
  statement: string;
  passcode: string[];
  reason: string;
  video_key: string | null;
  uploaded_at: number | null;
  measured: Record<string, unknown>;
}

/** The consents waiting for an operator, oldest first. */
export async function pendingReviews(deps: ReviewDeps, limit = 100): Promise<PendingReview[]> {
  const rows = await deps.lifecycle.listInState('validating', limit);
  return rows.flatMap((row) => {
    const { details: d } = readConsent(row);
    if (d.review?.state !== 'pending') return [];
    return [{
      consent_id: row.id,
      user_id: row.userId,
      language: d.language,
      name: d.name ?? '',
      statement: d.text.replace('[user name]', d.name ?? '[user name]'),
      passcode: d.passcode,
      reason: d.review.reason,
      video_key: d.videoKey ?? null,
      uploaded_at: d.uploadedAt ?? null,
      measured: Object.fromEntries(d.steps.map((s) => [s.check, s.measured])),
    }];
  });
}

export type ReviewOutcome = 'approved' | 'rejected' | 'not-pending';

/**
 * An operator's decision: approve (the consent is `done`, its webhook sent) or reject (`error`,
 * ConsentTextSimilarityError with the operator's reason). Only a pending review is decided, once.
 */
export async function decideReview(deps: ReviewDeps, id: string, decision: 'approve' | 'reject', reason: string): Promise<ReviewOutcome> {
  const row = await deps.lifecycle.getById(id);
  if (!row || row.status !== 'validating') return 'not-pending';
  const c = readConsent(row);
  if (c.details.review?.state !== 'pending') return 'not-pending';
  const now = deps.clock.now();
  const details: ConsentDetails = { ...c.details, review: { state: decision === 'approve' ? 'approved' : 'rejected', reason: reason || c.details.review.reason, decidedAt: now } };
  await deps.lifecycle.setDetails(id, details);
  if (decision === 'approve') return (await deps.lifecycle.finish(id, { verifiedAt: now })) ? 'approved' : 'not-pending';
  const ended = await deps.lifecycle.fail(id, 'ConsentTextSimilarityError', `An operator reviewed the consent video and found it does not match the statement${reason ? `: ${reason}` : ''}`);
  return ended ? 'rejected' : 'not-pending';
}
