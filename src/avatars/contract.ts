/**
 * What the avatars capability offers the others: users' own presenters, trained from their
 * footage (`USER_PRESENTERS`, listed by the presenter catalogue). Other capabilities import
 * this file only, never the avatars folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { UserPresenterSource } from '../presenters/contract.ts';

export const USER_PRESENTERS = defineServiceKey<UserPresenterSource>('userPresenters');
