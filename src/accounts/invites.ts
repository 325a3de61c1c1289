import { createHmac, randomBytes } from 'node:crypto';
import { deriveKey } from '../keys.ts';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, normalizeEmail } from './email.ts';
import type { AccountStore } from './store.ts';

/**
 * One-time links an operator hands a person: an invite (the first password) or a reset (a new
 * one). The link carries 32 random bytes; the database holds their HMAC under
 * `deriveKey(master, 'account-token')`. Using one sets the password, ends the person's other
 * sessions and signs them in (Accounts.acceptInvite).
 */
export const INVITE_DAYS = 7;
export const RESET_HOURS = 24;

export const accountTokenHash = (masterKey: Buffer, token: string): string =>
  createHmac('sha256', deriveKey(masterKey, 'account-token')).update(token).digest('base64url');

export interface InviteDeps {
  store: AccountStore;
  masterKey: Buffer;
  publicUrl: string;
  clock: { now(): number };
  newId: (prefix: string) => string;
}

export type InviteOutcome =
  | { ok: true; userId: string; email: string; link: string; expiresAt: number }
  | { ok: false; reason: string };

async function link(deps: InviteDeps, userId: string, kind: 'invite' | 'reset', lifeMs: number): Promise<{ link: string; expiresAt: number }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = now + lifeMs;
  await deps.store.createAccountToken({ id: deps.newId('atk'), userId, kind, tokenHash: accountTokenHash(deps.masterKey, token), createdAt: now, expiresAt });
  return { link: `${deps.publicUrl.replace(/\/$/, '')}/studio/invite?token=${token}`, expiresAt };
}

export function checkEmail(raw: string): string | null {
  const email = normalizeEmail(raw);
  return EMAIL_PATTERN.test(email) && email.length <= EMAIL_MAX_LENGTH ? email : null;
}

/** Gives the user a studio account with this email (no password yet) and a link to set one. */
export async function invite(deps: InviteDeps, userId: string, rawEmail: string): Promise<InviteOutcome> {
  const email = checkEmail(rawEmail);
  if (!email) return { ok: false, reason: `"${rawEmail}" is not an email address` };
  const existing = await deps.store.byUser(userId);
  if (existing && existing.email !== email) return { ok: false, reason: `user ${userId} already has the studio account ${existing.email}` };
  if (existing?.passwordHash) return { ok: false, reason: `${email} has a password already: use users reset-password` };
  if (!existing && !(await deps.store.createAccount({ userId, email, passwordHash: null, createdAt: deps.clock.now() }))) {
    const taken = await deps.store.byEmail(email);
    return { ok: false, reason: taken ? `${email} belongs to user ${taken.userId}` : `no user ${userId}` };
  }
  return { ok: true, userId, email, ...(await link(deps, userId, 'invite', INVITE_DAYS * 24 * 3600 * 1000)) };
}

/** A link that sets a new password for the account with this email (there is no mail: the operator passes it on). */
export async function resetLink(deps: InviteDeps, rawEmail: string): Promise<InviteOutcome> {
  const email = checkEmail(rawEmail);
  const account = email && (await deps.store.byEmail(email));
  if (!account) return { ok: false, reason: `no studio account has the email ${rawEmail}` };
  return { ok: true, userId: account.userId, email: account.email, ...(await link(deps, account.userId, 'reset', RESET_HOURS * 3600 * 1000)) };
}
