import { defineModule } from '../platform/module.ts';
import { KEY_OWNERS } from '../platform/caller.ts';
import { provide } from '../platform/service-key.ts';
import { deriveKey } from '../keys.ts';
import { USERS } from './contract.ts';
import { userStoreOn } from './store-pg.ts';
import { USER_COMMANDS } from './cli.ts';
import { keyRoutes } from './routes.ts';

/**
 * Users, their API keys and credits: operator commands, a person's own keys by API
 * (`/keys`), the users store (`USERS`) and the owners of API keys the kernel's key verifier
 * reads (`KEY_OWNERS`), one store for both: a key revoked through `/keys` fails on its next
 * request in this process at once.
 */
export const usersModule = defineModule({
  name: 'users',
  commands: USER_COMMANDS,
  provides: [USERS, KEY_OWNERS],
  create(p) {
    const users = userStoreOn(p.store);
    const routes = keyRoutes({ users, clock: p.clock, newId: p.newId, apiKeyHashKey: deriveKey(p.config.masterKey, 'api-key-hash') });
    return { provides: [provide(USERS, users), provide(KEY_OWNERS, users)], routes };
  },
});
