import { defineModule } from '../platform/module.ts';
import { KEY_OWNERS } from '../platform/caller.ts';
import { provide } from '../platform/service-key.ts';
import { USERS } from './contract.ts';
import { createSqliteUserStore } from './store.ts';
import { USER_COMMANDS } from './cli.ts';

/**
 * Users, their API keys and credits: operator commands, the users store (`USERS`) and the
 * owners of API keys the kernel's key verifier reads (`KEY_OWNERS`), one store for both.
 */
export const usersModule = defineModule({
  name: 'users',
  commands: USER_COMMANDS,
  provides: [USERS, KEY_OWNERS],
  create(p) {
    const users = createSqliteUserStore(p.store);
    return { provides: [provide(USERS, users), provide(KEY_OWNERS, users)] };
  },
});
