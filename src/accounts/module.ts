import { defineModule } from '../platform/module.ts';
import { BEARER_TOKENS } from '../platform/caller.ts';
import { provide } from '../platform/service-key.ts';
import { deriveKey } from '../keys.ts';
import { ApiError } from '../errors.ts';
import { ACCOUNTS, type Accounts } from './contract.ts';
import { accountsSettings } from './settings.ts';
import { createSqliteAccountStore } from './store.ts';
import { createPasswords } from './passwords.ts';

/**
 * People who sign in to the studio: emails and passwords, studio sessions, invites, the
 * sign-in throttle, and the bearer tokens (JWT) the API accepts beside API keys.
 * src/accounts/README.md states the invariants.
 */
export const accountsModule = defineModule({
  name: 'accounts',
  config: accountsSettings,
  provides: [ACCOUNTS, BEARER_TOKENS],
  create(p, settings) {
    const store = createSqliteAccountStore(p.store);
    const passwords = createPasswords(deriveKey(p.config.masterKey, 'password-pepper'), settings.passwordCost);
    // c0: the interfaces only; sign-in and tokens land in the next commits.
    const pending = (): never => {
      throw new ApiError('ServiceUnavailableError', 'studio sign-in is not available yet');
    };
    const accounts: Accounts = {
      signIn: async () => pending(),
      sessionOf: async () => null,
      signOut: async () => pending(),
      csrfToken: () => pending(),
      checkCsrf: () => false,
      issueToken: async () => pending(),
      acceptInvite: async () => pending(),
    };
    return { store, passwords, provides: [provide(ACCOUNTS, accounts), provide(BEARER_TOKENS, { verify: async () => null })] };
  },
});
