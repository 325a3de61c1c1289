/**
 * What the consents capability offers the others: what an avatar checks of its consent
 * (`CONSENTS`). Other capabilities import this file only, never the consents folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { ConsentsForAvatars } from './access.ts';

export type { ConsentsForAvatars } from './access.ts';

export const CONSENTS = defineServiceKey<ConsentsForAvatars>('consents');
