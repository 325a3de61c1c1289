import { ApiError, notFound } from '../errors.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { Passwords } from './passwords.ts';
import type { AccountStore } from './store.ts';

/** The signed-in person's own account: who they are, their sessions, their password. Verbs the API routes call. */
export interface AccountDeps {
  store: AccountStore;
  passwords: Passwords;
  clock: { now(): number };
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
}

/** Sets a new password after checking the current one; every other session of the person ends (the caller's own stays). */
export async function changePassword(deps: AccountDeps, user: AuthUser, body: { current_password: string; new_password: string }): Promise<{ revoked_sessions: number }> {
  const account = await deps.store.byUser(user.id);
  if (!account) throw notFound('studio account');
  const ok = account.passwordHash !== null && (await deps.passwords.verify(account.passwordHash, body.current_password));
  if (!ok) throw new ApiError('PermissionError', 'The current password is not right');
  const now = deps.clock.now();
  await deps.store.setPassword(user.id, await deps.passwords.hash(body.new_password), now);
  return { revoked_sessions: await deps.store.revokeOtherSessions(user.id, user.sessionId ?? null, now) };
}
