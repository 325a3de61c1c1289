import { reviewCommands } from '../resources/review-commands.ts';
import { systemClock } from '../clock.ts';
import type { CommandStores } from '../resources/command-stores.ts';
import type { MediaAccess } from '../media/index.ts';
import { avatarLifecycle } from './kind.ts';
import { decideAvatarReview, pendingAvatarReviews, type AvatarReviewDeps } from './review.ts';

const reviewDeps = (stores: CommandStores, media: MediaAccess): AvatarReviewDeps => ({
  lifecycle: avatarLifecycle(stores.resources, systemClock, media),
  resources: stores.resources, media, clock: systemClock, maxAttempts: 3,
});

/**
 * `avatars review`: avatars whose footage face scored in the identity review band against
 * their consent video. Compare the two, then approve (training starts) or reject.
 */
export const AVATAR_COMMANDS = reviewCommands({
  group: 'avatars',
  what: 'avatar',
  idPrefix: 'avt',
  rejectExample: 'the footage shows another person',
  listHelp: 'Lists the avatars waiting for an identity review (oldest first), one JSON line each: the measured similarity, the footage URL\nand the local file of the consent video. Decide with `avatars approve|reject <avatar id>`.',
  approveHelp: 'Approves a pending avatar: the footage shows the person of the consent; training is queued.',
  rejectHelp: 'Rejects a pending avatar: it ends rejected (credits refunded, the consent free again) and its webhook is sent.',
  pending: (stores, media) => pendingAvatarReviews(reviewDeps(stores, media)),
  decide: (stores, media, id, decision, reason) => decideAvatarReview(reviewDeps(stores, media), id, decision, reason),
});
