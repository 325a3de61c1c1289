/**
 * What the accounts capability offers the others (the studio, later the agents): people
 * signing in with a password, their studio sessions, CSRF tokens bound to a session, and
 * bearer tokens minted for a session. Other capabilities import this file only.
 * The verification of bearer tokens at the edge is the kernel's BEARER_TOKENS
 * (src/platform/caller.ts), which this capability provides too.
 */
import { defineServiceKey } from '../platform/service-key.ts';

/** A password's length, in characters: at least, and at most (a megabyte password is work, not security). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
/** The longest email an account may have (RFC 5321's path limit). */
export const EMAIL_MAX_LENGTH = 254;

/** A live studio session, as the studio sees it (never its cookie token). */
export interface StudioSession {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * The outcome of a sign-in. `invalid` is the one answer for a wrong password and an unknown
 * email alike; `throttled` when the account's or the address's failures are over the limit.
 * `cookieToken` is what the cookie carries (only its HMAC is stored).
 */
export type SignIn =
  | { ok: true; session: StudioSession; cookieToken: string }
  | { ok: false; reason: 'invalid' | 'throttled'; retryAfterSeconds?: number };

/** A bearer token as the API returns it (RFC 6749 §5.1 names). */
export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

export interface Accounts {
  signIn(i: { email: string; password: string; address: string; userAgent?: string }): Promise<SignIn>;
  /** null: unknown, expired, idle too long, or revoked. */
  sessionOf(cookieToken: string): Promise<StudioSession | null>;
  signOut(sessionId: string): Promise<void>;
  /** HMAC of the session id under a key derived from the master key: stable for the session's life. */
  csrfToken(s: StudioSession): string;
  /** Constant-time comparison with csrfToken(s); false for a missing token. */
  checkCsrf(s: StudioSession, token: string | undefined): boolean;
  /** A short-lived JWT for the session's person, for the studio's pages to call the API with. */
  issueToken(s: StudioSession): Promise<IssuedToken>;
  /** Sets the first password of an invited account (or a new one from a reset link) and signs in. */
  acceptInvite(i: { token: string; password: string; address: string; userAgent?: string }): Promise<SignIn>;
}

/** Provided by the accounts module. */
export const ACCOUNTS = defineServiceKey<Accounts>('accounts');
