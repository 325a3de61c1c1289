/**
 * What the users capability offers the others: the users store's shape, through which a
 * capability charges and refunds credits (`addCredits`, a conditional update).
 * The caller itself (AuthUser, requirePermission, the key verifier) is the kernel's:
 * src/platform/caller.ts. Other capabilities import this file only, never the users folder's
 * other files.
 */
export type { CreditChange, UserStore } from './store.ts';
