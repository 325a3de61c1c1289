import { int } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

/** The accounts module's settings (docs/configuration.md, "Accounts"). */
export interface AccountsSettings {
  /** A studio session's longest life. */
  sessionMs: number;
  /** A session unused this long ends. */
  sessionIdleMs: number;
  /** A bearer token's life. */
  tokenTtlSeconds: number;
  /** How long a signing key signs before the next one takes over. */
  tokenKeyMs: number;
  /** Failed sign-ins per account, then per address, in one window. */
  signInPerAccount: number;
  signInPerAddress: number;
  signInWindowMs: number;
  /**
   * argon2id's cost. Never read from the environment: production always uses the defaults
   * (OWASP's m=19 MiB, t=2, p=1); tests may lower it through a settings override.
   */
  passwordCost: { memoryCost: number; timeCost: number };
}

const DAY_MS = 24 * 3600 * 1000;

export const DEFAULT_PASSWORD_COST = Object.freeze({ memoryCost: 19456, timeCost: 2 });

export const accountsSettings: ConfigSection<AccountsSettings> = {
  variables: [
    { name: 'MIMIC_SESSION_DAYS', default: '30', description: 'longest life of a studio session, in days (1 to 365)' },
    { name: 'MIMIC_SESSION_IDLE_DAYS', default: '7', description: 'a studio session unused this many days ends (1 to 365)' },
    { name: 'MIMIC_TOKEN_TTL_SECONDS', default: '600', description: 'life of a bearer token (JWT), in seconds (60 to 3600)' },
    { name: 'MIMIC_TOKEN_KEY_DAYS', default: '7', description: 'days a token signing key signs before a new one takes over (1 to 90)' },
    { name: 'MIMIC_SIGN_IN_PER_ACCOUNT', default: '10', description: 'failed sign-ins per account in 15 minutes before it is throttled (1 to 1000)' },
    { name: 'MIMIC_SIGN_IN_PER_ADDRESS', default: '50', description: 'failed sign-ins per client address (IPv6: per /64) in 15 minutes (1 to 100000)' },
  ],
  load: (env) => ({
    sessionMs: int(env, 'MIMIC_SESSION_DAYS', 30, 1, 365) * DAY_MS,
    sessionIdleMs: int(env, 'MIMIC_SESSION_IDLE_DAYS', 7, 1, 365) * DAY_MS,
    tokenTtlSeconds: int(env, 'MIMIC_TOKEN_TTL_SECONDS', 600, 60, 3600),
    tokenKeyMs: int(env, 'MIMIC_TOKEN_KEY_DAYS', 7, 1, 90) * DAY_MS,
    signInPerAccount: int(env, 'MIMIC_SIGN_IN_PER_ACCOUNT', 10, 1, 1000),
    signInPerAddress: int(env, 'MIMIC_SIGN_IN_PER_ADDRESS', 50, 1, 100_000),
    signInWindowMs: 15 * 60 * 1000,
    passwordCost: { ...DEFAULT_PASSWORD_COST },
  }),
};
