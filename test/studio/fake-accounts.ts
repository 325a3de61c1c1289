import type { Accounts, StudioSession } from '../../src/accounts/contract.ts';
import { createStudioApp } from '../../src/studio/routes/app.ts';
import { createLogger } from '../../src/log.ts';

/**
 * A test double of the accounts capability for the studio's own tests: the cookie token
 * `good` is a live session of `session`; its CSRF token is `csrf-<session id>`. Sign-in and
 * tokens are the accounts module's, tested in test/accounts/.
 */
export function fakeAccounts(session: StudioSession): Accounts {
  const csrf = `csrf-${session.id}`;
  return {
    signIn: async () => ({ ok: false, reason: 'invalid' }),
    sessionOf: async (token) => (token === 'good' ? session : null),
    signOut: async () => {},
    csrfToken: () => csrf,
    checkCsrf: (_s, token) => token === csrf,
    issueToken: async () => ({ access_token: 'not-a-real-token', token_type: 'Bearer', expires_in: 600 }),
    acceptInvite: async () => ({ ok: false, reason: 'invalid' }),
  };
}

export const SESSION: StudioSession = { id: 'ses_test', userId: 'usr_test', email: 'ada@example.com', name: 'Ada', createdAt: 0, expiresAt: 4_000_000_000_000 };

/** The studio sub-app over a fake session, and a request helper that sends its cookie (or not). */
export function fakeStudio(session: StudioSession = SESSION) {
  const logs: string[] = [];
  const app = createStudioApp({
    accounts: fakeAccounts(session),
    publicUrl: 'http://mimic.test',
    trustedProxies: [],
    log: createLogger((l) => logs.push(l)),
  });
  const get = (path: string, { signedIn = true, accept = 'text/html' } = {}) =>
    app.request(`http://mimic.test${path}`, { headers: { accept, ...(signedIn ? { cookie: 'mimic_studio=good' } : {}) } });
  return { app, get, logs };
}
