import type { AuthUser } from '../platform/caller.ts';

export type { AuthUser };
/** Hono's typed context for the app: what middleware sets, read with `c.get()` (the module contract's, src/platform/module.ts). */
export type { AppEnv } from '../platform/module.ts';
