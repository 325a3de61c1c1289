/**
 * What the consents capability offers the others: what an avatar checks of its consent
 * (`CONSENTS`). Other capabilities import this file only, never the consents folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { ConsentsForAvatars } from './access.ts';

export type { ConsentsForAvatars } from './access.ts';

export const CONSENTS = defineServiceKey<ConsentsForAvatars>('consents');

// The consent video's checks an avatar's training repeats on its footage, and the consent
// languages an avatar's voice is chosen from. (The video fetch and checks are media's in kind:
// they move down to media/ with the rest of the input checks.)
export { CheckFailure, FACING, fetchVideo, isFacing, round } from './video.ts';
export { findLanguage } from './languages/index.ts';
