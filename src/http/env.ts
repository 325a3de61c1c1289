import type { AuthUser } from '../platform/caller.ts';

export type { AuthUser };
/** Hono's typed context for the app: what middleware puts on `c.var`. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the auth middleware on every authenticated route. */
    user: AuthUser;
  };
}
