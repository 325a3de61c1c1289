/**
 * What the users capability offers the others: the users store (`USERS`), through which a
 * capability charges and refunds credits (`addCredits`, a conditional update).
 * The caller itself (AuthUser, requirePermission, the key verifier) is the kernel's:
 * src/platform/caller.ts. Other capabilities import this file only, never the users folder's
 * other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { UserStore } from './store.ts';

export type { CreditChange, UserStore } from './store.ts';

/** The users store, provided by the users module (which builds it from the platform's handle). */
export const USERS = defineServiceKey<UserStore>('users');

/**
 * The most active (unrevoked) API keys one user may hold through POST /keys: enough for a
 * key per app and environment, few enough that a leaked token cannot mint keys without
 * bound. The operator's `keys create` is not capped.
 */
export const MAX_ACTIVE_KEYS = 20;

/**
 * The change-notice topic (PostgreSQL's LISTEN/NOTIFY, src/db/pg/changes.ts) on which API-key
 * changes are announced: what remembers verified keys, or reads api_keys, listens to it.
 */
export const KEYS_TOPIC = 'keys';
