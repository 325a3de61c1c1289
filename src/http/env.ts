/** Hono's typed context for the app: what middleware puts on `c.var`. */
export interface AuthUser {
  id: string;
  name: string | null;
  permissions: readonly string[];
}

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the auth middleware on every authenticated route. */
    user: AuthUser;
  };
}
