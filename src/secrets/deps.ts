import type { Clock, IdFactory } from '../clock.ts';
import type { Vault } from '../vault/index.ts';
import type { SecretStore } from './store.ts';

/** The part of the vault the secrets domain uses. */
export type SecretVault = Pick<Vault, 'seal' | 'open'>;

export interface SecretDeps {
  secretStore: SecretStore;
  vault: SecretVault;
  clock: Clock;
  newId: IdFactory;
}

/** Which encrypted fields each type stores. Everything else about a secret is not secret. */
export const SECRET_FIELDS = {
  bearer: ['token'],
  api_key: ['api_key'],
  basic: ['username', 'password'],
  oauth2: ['access_token', 'refresh_token', 'client_secret'],
} as const;
