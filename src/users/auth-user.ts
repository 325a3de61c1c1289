/** The caller moved to the kernel (platform/caller.ts); re-exported for the importers not yet pointed there. */
export type { AuthUser } from '../platform/caller.ts';
