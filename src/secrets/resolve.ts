import type { SecretRow } from '../db/schema.ts';
import { DEFAULT_API_KEY_HEADER, type Credential } from '../egress/credential.ts';
import type { SecretDeps } from './deps.ts';

/** Decrypts a secret's stored values: for one outbound call, never for a response. */
export async function openSecretValues(deps: SecretDeps, row: SecretRow): Promise<Record<string, string>> {
  return deps.vault.open(row.userId, row.id, await deps.secretStore.sealedValues(row.id));
}

/** The credential a secret's decrypted values make, as the executor sends it (an oauth2 secret's current access token). */
export function credentialOf(row: SecretRow, v: Record<string, string>): Credential {
  const need = (field: string): string => {
    const value = v[field];
    if (value === undefined) throw new Error(`secret ${row.id} has no stored ${field}`);
    return value;
  };
  switch (row.type) {
    case 'bearer':
      return { type: 'bearer', token: need('token') };
    case 'api_key':
      return { type: 'api_key', apiKey: need('api_key'), headerName: row.headerName ?? DEFAULT_API_KEY_HEADER };
    case 'basic':
      return { type: 'basic', username: need('username'), password: need('password') };
    case 'oauth2':
      return { type: 'oauth2', accessToken: need('access_token') };
  }
}

/**
 * The credential of a bearer, api_key or basic secret. oauth2 secrets go through the
 * refresher, which owns their access token's freshness.
 */
export async function staticCredential(deps: SecretDeps, row: SecretRow): Promise<Credential> {
  return credentialOf(row, await openSecretValues(deps, row));
}
