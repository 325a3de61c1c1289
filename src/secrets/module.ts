import { defineModule } from '../platform/module.ts';
import type { SecretDeps } from './deps.ts';
import { secretRoutes } from './routes.ts';
import { SECRET_COMMANDS } from './cli.ts';

/** Credentials sealed in the vault (POST /secrets ...); their values never leave it. */
export const secretsModule = defineModule({
  name: 'secrets',
  commands: SECRET_COMMANDS,
  create(p) {
    const deps: SecretDeps = { secretStore: p.stores.secrets, vault: p.vault, clock: p.clock, newId: p.newId };
    return { deps, routes: secretRoutes(deps, p.config.publicUrl) };
  },
});
