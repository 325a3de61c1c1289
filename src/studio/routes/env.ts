import type { Accounts, StudioSession } from '../../accounts/contract.ts';

/**
 * The studio sub-app's typed context: the signed-in session (set by requireSession) and its
 * CSRF token, read with `c.get('session')` and `c.get('csrf')`.
 */
export interface StudioEnv {
  Variables: {
    session?: StudioSession;
    csrf?: string;
  };
}

/** What the studio's pages and middleware are built with. */
export interface StudioDeps {
  accounts: Accounts;
  /** MIMIC_PUBLIC_URL: the origin a POST must come from, and whether the cookie is Secure. */
  publicUrl: string;
  /** MIMIC_TRUSTED_PROXIES: the addresses whose X-Forwarded-For is believed. */
  trustedProxies: readonly string[];
}
