/**
 * What the presenters capability offers the others: the presenter catalogue clips, streams
 * and agents speak with (`PRESENTERS`), and the shape of a source of users' own presenters
 * another capability may fill (the avatars' `USER_PRESENTERS`). Other capabilities import
 * this file only, never the presenters folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { PresenterCatalogue } from './catalogue.ts';

export type { PresenterCatalogue, PresenterEntry, UserPresenterSource } from './catalogue.ts';

export const PRESENTERS = defineServiceKey<PresenterCatalogue>('presenters');

// Where a presenter's files are stored and how its images are scaled: what the avatars'
// training writes a new presenter with.
export { presenterKeys, scaled } from './catalogue.ts';

// The presenter a clip gets when it names none.
export { DEFAULT_PRESENTER_ID } from './built-in.ts';
