import { ApiError, notFound } from '../errors.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { Passwords } from './passwords.ts';
import type { AccountStore } from './store.ts';
import type { Throttle } from './throttle.ts';
import type { AccountAudit } from './audit.ts';

/** The signed-in person's own account: who they are, their sessions, their password. Verbs the API routes call. */
export interface AccountDeps {
  store: AccountStore;
  passwords: Passwords;
  /** Wrong current passwords count against the account's sign-in limit: a stolen token cannot guess the password. */
  throttle: Throttle;
  clock: { now(): number };
  audit: AccountAudit;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function accountOf(deps: AccountDeps, user: AuthUser) {
  const account = await deps.store.byUser(user.id);
  return {
    id: user.id,
    name: user.name,
    email: account?.email ?? null,
    permissions: [...user.permissions],
    via: user.via ?? 'api-key',
    ...(user.sessionId ? { session_id: user.sessionId } : {}),
  };
}

export async function sessionsOf(deps: AccountDeps, user: AuthUser) {
  const rows = await deps.store.listSessions(user.id, deps.clock.now());
  return {
    sessions: rows.map((s) => ({
      id: s.id,
      created_at: iso(s.createdAt),
      last_seen_at: iso(s.lastSeenAt),
      expires_at: iso(s.expiresAt),
      user_agent: s.userAgent,
      address: s.address,
      current: s.id === user.sessionId,
    })),
  };
}

export async function revokeOwnSession(deps: AccountDeps, user: AuthUser, sessionId: string): Promise<void> {
  if (!(await deps.store.revokeSession(sessionId, deps.clock.now(), user.id))) throw notFound('session');
  await deps.audit.record(user.id, 'account.session_revoked', 'success', { session_id: sessionId });
}

/** Sets a new password after checking the current one; every other session of the person ends (the caller's own stays). */
export async function changePassword(deps: AccountDeps, user: AuthUser, body: { current_password: string; new_password: string }): Promise<{ revoked_sessions: number }> {
  const account = await deps.store.byUser(user.id);
  if (!account) throw notFound('studio account');
  const now = deps.clock.now();
  const wait = await deps.throttle.accountWait(account.email, now);
  if (wait > 0) throw new ApiError('TooManyRequestsError', `Too many wrong passwords: try again in ${wait} seconds`, { retry_after_seconds: wait });
  const ok = account.passwordHash !== null && (await deps.passwords.verify(account.passwordHash, body.current_password));
  if (!ok) {
    await deps.throttle.accountFail(account.email, now);
    await deps.audit.record(user.id, 'account.password_changed', 'failure', { reason: 'wrong_current_password' });
    throw new ApiError('PermissionError', 'The current password is not right');
  }
  await deps.store.setPassword(user.id, await deps.passwords.hash(body.new_password), now);
  const revoked = await deps.store.revokeOtherSessions(user.id, user.sessionId ?? null, now);
  await deps.audit.record(user.id, 'account.password_changed', 'success', user.sessionId ? { session_id: user.sessionId } : {});
  return { revoked_sessions: revoked };
}
