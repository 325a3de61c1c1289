import { reviewCommands } from '../resources/review-commands.ts';
import { systemClock } from '../clock.ts';
import { consentLifecycle } from './kind.ts';
import { decideReview, pendingReviews } from './review.ts';

/**
 * `consents review`: the operator review queue of consents whose spoken words no recogniser
 * here can check. List them (with the local file of each video to watch), then approve or
 * reject each one; the decision ends the consent and sends its webhook.
 */
export const CONSENT_COMMANDS = reviewCommands({
  group: 'consents',
  what: 'consent',
  idPrefix: 'cns',
  rejectExample: 'the name read is not the name given',
  listHelp: 'Lists the consents waiting for an operator (oldest first), one JSON line each: the statement to hear (with the name and the passcode),\nwhat was measured and the local file of the video. Decide with `consents approve|reject <consent id>`.',
  approveHelp: 'Approves a pending consent after watching its video: it becomes done (usable for one avatar) and its webhook is sent.',
  rejectHelp: 'Rejects a pending consent: it ends in error (ConsentTextSimilarityError) with the reason, and its webhook is sent.',
  async pending(stores, media) {
    const pending = await pendingReviews({ lifecycle: consentLifecycle(stores.resources, systemClock, media), clock: systemClock });
    return Promise.all(pending.map(async (p) => ({ ...p, video_file: p.video_key ? await media.localFile(p.user_id, p.video_key) : null })));
  },
  decide: (stores, media, id, decision, reason) =>
    decideReview({ lifecycle: consentLifecycle(stores.resources, systemClock, media), clock: systemClock }, id, decision, reason),
});
