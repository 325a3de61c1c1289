import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../keys.ts';
import type { Accounts, SignIn, StudioSession } from './contract.ts';
import { normalizeEmail } from './email.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type Passwords } from './passwords.ts';
import type { AccountStore, SessionRow } from './store.ts';
import type { Throttle } from './throttle.ts';
import type { TokenService } from './tokens.ts';
import type { AccountsSettings } from './settings.ts';
import { accountTokenHash } from './invites.ts';
import type { AccountAudit } from './audit.ts';
import type { Logger } from '../log.ts';

/** last_seen_at moves at most this often (one write a minute per active session, not one per page). */
const TOUCH_MS = 60_000;
const USER_AGENT_MAX = 200;

const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('base64url');

/** Constant-time equality of two strings (false at once when the lengths differ: the length is no secret here). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createAccounts(deps: {
  store: AccountStore;
  passwords: Passwords;
  throttle: Throttle;
  tokens: TokenService;
  settings: AccountsSettings;
  masterKey: Buffer;
  clock: { now(): number };
  newId: (prefix: string) => string;
  audit: AccountAudit;
  log: Logger;
}): Accounts & { sessionKey: Buffer } {
  const { store, passwords, throttle, settings, clock } = deps;
  const sessionKey = deriveKey(deps.masterKey, 'studio-session');
  const csrfKey = deriveKey(deps.masterKey, 'studio-csrf');

  const view = (s: Pick<SessionRow, 'id' | 'userId' | 'email' | 'name' | 'createdAt' | 'expiresAt'>): StudioSession => ({
    id: s.id,
    userId: s.userId,
    email: s.email,
    name: s.name,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
  });

  const startSession = async (
    account: { userId: string; email: string; name: string | null },
    i: { address: string; userAgent?: string },
    action: { action: 'account.sign_in' | 'account.invite_accepted'; type?: string },
  ): Promise<SignIn> => {
    const now = clock.now();
    const cookieToken = randomBytes(32).toString('base64url');
    const row = {
      id: deps.newId('ses'),
      userId: account.userId,
      tokenHash: hmac(sessionKey, cookieToken),
      createdAt: now,
      expiresAt: now + settings.sessionMs,
      userAgent: i.userAgent ? i.userAgent.slice(0, USER_AGENT_MAX) : null,
      address: i.address,
    };
    await store.createSession(row);
    await deps.audit.record(account.userId, action.action, 'success', { session_id: row.id, address: i.address, ...(action.type ? { type: action.type } : {}) });
    return { ok: true, cookieToken, session: view({ ...row, email: account.email, name: account.name }) };
  };

  return {
    sessionKey,
    async signIn(i) {
      const email = normalizeEmail(i.email);
      const now = clock.now();
      const wait = await throttle.wait(email, i.address, now);
      if (wait > 0) return { ok: false, reason: 'throttled', retryAfterSeconds: wait };
      const account = await store.byEmail(email);
      const acceptable = i.password.length >= 1 && i.password.length <= PASSWORD_MAX_LENGTH;
      // An unknown email (or an invited account without a password) costs one argon2 verify too.
      const ok = account?.passwordHash && acceptable ? await passwords.verify(account.passwordHash, i.password) : (await passwords.dummyVerify(i.password.slice(0, PASSWORD_MAX_LENGTH)), false);
      if (!ok || !account) {
        await throttle.fail(email, i.address, now);
        // The account's own trail, bounded by the throttle (a throttled attempt writes nothing). An email
        // with no account has no trail to go in: the log says an attempt failed, not which email.
        if (account) await deps.audit.record(account.userId, 'account.sign_in', 'failure', { reason: account.passwordHash ? 'wrong_password' : 'no_password_yet', address: i.address });
        else deps.log.info('studio sign-in failed: no account has that email', { address: i.address });
        return { ok: false, reason: 'invalid' };
      }
      await throttle.succeed(email);
      return startSession(account, i, { action: 'account.sign_in' });
    },
    async sessionOf(cookieToken) {
      if (cookieToken.length > 100) return null;
      const row = await store.sessionByTokenHash(hmac(sessionKey, cookieToken));
      const now = clock.now();
      if (!row || row.expiresAt <= now || row.lastSeenAt <= now - settings.sessionIdleMs) return null;
      if (row.lastSeenAt < now - TOUCH_MS) await store.touchSession(row.id, now, now - TOUCH_MS);
      return view(row);
    },
    async signOut(sessionId) {
      const now = clock.now();
      const owner = await store.ownerOfSid(sessionId, now, 0);
      if ((await store.revokeSession(sessionId, now)) && owner) await deps.audit.record(owner.userId, 'account.signed_out', 'success', { session_id: sessionId });
    },
    csrfToken: (s) => hmac(csrfKey, s.id),
    checkCsrf: (s, token) => token !== undefined && sameSecret(token, hmac(csrfKey, s.id)),
    issueToken: (s) => deps.tokens.issue({ userId: s.userId, sid: s.id }),
    async acceptInvite(i) {
      const now = clock.now();
      if (i.password.length < PASSWORD_MIN_LENGTH || i.password.length > PASSWORD_MAX_LENGTH) return { ok: false, reason: 'invalid' };
      const used = i.token.length > 100 ? undefined : await store.useAccountToken(accountTokenHash(deps.masterKey, i.token), now);
      const account = used && (await store.byUser(used.userId));
      if (!account) return { ok: false, reason: 'invalid' };
      await store.setPassword(account.userId, await passwords.hash(i.password), now);
      await store.revokeOtherSessions(account.userId, null, now);
      return startSession(account, i, { action: 'account.invite_accepted', type: used.kind });
    },
  };
}
