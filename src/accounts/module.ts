import { defineModule } from '../platform/module.ts';
import { BEARER_TOKENS, KEY_OWNERS } from '../platform/caller.ts';
import { provide } from '../platform/service-key.ts';
import { deriveKey } from '../keys.ts';
import { ACCOUNTS } from './contract.ts';
import { accountsSettings } from './settings.ts';
import { accountStoreOn } from './store-pg.ts';
import { createPasswords } from './passwords.ts';
import { createThrottle } from './throttle.ts';
import { createKeyRing } from './signing-keys.ts';
import { createTokenService } from './tokens.ts';
import { createAccounts } from './service.ts';
import { accountRoutes } from './routes.ts';
import { ACCOUNT_COMMANDS } from './cli.ts';
import { AUDIT } from '../audit/contract.ts';
import { accountAudit } from './audit.ts';

/**
 * People who sign in to the studio: emails and passwords, studio sessions, invites, the
 * sign-in throttle, and the bearer tokens (JWT) the API accepts beside API keys.
 * src/accounts/README.md states the invariants.
 */
export const accountsModule = defineModule({
  name: 'accounts',
  config: accountsSettings,
  commands: ACCOUNT_COMMANDS,
  provides: [ACCOUNTS, BEARER_TOKENS],
  needs: [AUDIT],
  uses: [KEY_OWNERS],
  create(p, settings, services) {
    const { clock, newId } = p;
    const masterKey = p.config.masterKey;
    const store = accountStoreOn(p.store);
    const passwords = createPasswords(deriveKey(masterKey, 'password-pepper'), settings.passwordCost);
    const throttle = createThrottle(store, { perAccount: settings.signInPerAccount, perAddress: settings.signInPerAddress, windowMs: settings.signInWindowMs });
    const ring = createKeyRing({ store, sealKey: deriveKey(masterKey, 'token-signing-key'), newId, rotationMs: settings.tokenKeyMs, tokenTtlMs: settings.tokenTtlSeconds * 1000 });
    const keyOwners = services.find(KEY_OWNERS);
    const tokens = createTokenService({
      store,
      ring,
      clock,
      issuer: p.config.publicUrl,
      ttlSeconds: settings.tokenTtlSeconds,
      sessionIdleMs: settings.sessionIdleMs,
      keysVersion: keyOwners ? () => keyOwners.keysVersion() : async () => 0,
    });
    const audit = accountAudit(services.get(AUDIT), { clock, newId });
    const accounts = createAccounts({ store, passwords, throttle, tokens, settings, masterKey, clock, newId, audit, log: p.log });
    return {
      store,
      passwords,
      tokens,
      ring,
      routes: accountRoutes({ ring, tokens, clock, account: { store, passwords, throttle, clock, audit } }),
      provides: [provide(ACCOUNTS, accounts), provide(BEARER_TOKENS, tokens)],
    };
  },
});
