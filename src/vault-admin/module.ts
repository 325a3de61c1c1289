import { defineModule } from '../platform/module.ts';
import { VAULT_COMMANDS } from './cli.ts';

/** The vault's operator commands (status, key rotation); the vault itself is infrastructure (src/vault/). */
export const vaultModule = defineModule({
  name: 'vault',
  commands: VAULT_COMMANDS,
  create: () => ({}),
});
