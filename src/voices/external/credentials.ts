import type { SecretRow } from '../../db/schema.ts';
import type { Credential, SecretType } from '../../egress/credential.ts';
import { staticCredential, type SecretDeps, type SecretStore } from '../../secrets/contract.ts';
import { SpeechError } from '../interface.ts';
import type { ExternalProviderConfig, ExternalProviderType } from '../settings.ts';

/**
 * The credential of an external voice provider: a vault secret named by id in
 * MIMIC_VOICE_PROVIDERS. It is opened for each vendor call through the same path as a tool
 * call's (`staticCredential`), used for that call's header, and dropped: nothing keeps the
 * plaintext between calls, so a PUT /secrets/{id} takes effect at the next call.
 */

/** Which secret type each vendor's credential is, and the header it travels in. */
export const SECRET_TYPE_OF: Record<ExternalProviderType, { type: Extract<SecretType, 'api_key' | 'bearer'>; header: string }> = {
  microsoft: { type: 'api_key', header: 'Ocp-Apim-Subscription-Key' },
  elevenlabs: { type: 'api_key', header: 'xi-api-key' },
  openai: { type: 'bearer', header: 'Authorization: Bearer' },
};

/** A credential opened for one call, and the user who owns its secret (the audit row is theirs). */
export interface OpenedCredential {
  credential: Credential;
  ownerId: string;
}

/** Opens the credential of one provider's secret for one call. */
export type CredentialOpener = (provider: ExternalProviderType, secretId: string) => Promise<OpenedCredential>;

const withArticle = (type: string) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;

/** Why a secret row cannot serve the provider, or null when it can. Reads the row only: nothing is decrypted. */
export function secretProblem(provider: ExternalProviderType, secretId: string, row: SecretRow | undefined): string | null {
  const want = SECRET_TYPE_OF[provider];
  if (!row) {
    return `the ${provider} voice provider's secret ${secretId} does not exist: create ${withArticle(want.type)} secret (POST /secrets) and put its id in MIMIC_VOICE_PROVIDERS`;
  }
  if (row.type !== want.type) {
    return `the ${provider} voice provider's secret ${secretId} is ${withArticle(row.type)} secret; ${provider} needs ${withArticle(want.type)} secret (its value is sent as ${want.header})`;
  }
  return null;
}

/** The opener over the vault: checks the secret's type before decrypting anything. */
export function vaultCredentials(deps: SecretDeps): CredentialOpener {
  return async (provider, secretId) => {
    const row = await deps.secretStore.getById(secretId);
    const problem = secretProblem(provider, secretId, row);
    if (problem) throw new SpeechError('vendor', problem);
    return { credential: await staticCredential(deps, row!), ownerId: row!.userId };
  };
}

/**
 * What is wrong with the configured providers' secrets, one line each (empty when nothing is),
 * checked without decrypting and without calling any vendor: the module logs these at start
 * so an operator learns of a missing or mistyped secret before the first clip fails.
 */
export async function providerSecretProblems(providers: readonly ExternalProviderConfig[], secrets: Pick<SecretStore, 'getById'>): Promise<string[]> {
  const problems: string[] = [];
  for (const p of providers) {
    const problem = secretProblem(p.type, p.secretId, await secrets.getById(p.secretId));
    if (problem) problems.push(problem);
  }
  return problems;
}
