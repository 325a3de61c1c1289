import type { Platform } from '../../platform/platform.ts';
import type { SecretStore } from '../../secrets/contract.ts';
import type { AuditStore } from '../../audit/contract.ts';
import type { VoiceProvider } from '../interface.ts';
import type { ExternalProviderConfig, VoiceSettings } from '../settings.ts';
import { vaultCredentials } from './credentials.ts';
import { createElevenLabsProvider } from './elevenlabs.ts';
import type { ExternalDeps } from './http.ts';
import { createMicrosoftProvider } from './microsoft.ts';
import { createOpenAIProvider } from './openai.ts';

/**
 * The external voice providers: real HTTP clients of Azure Speech, ElevenLabs and an
 * OpenAI-compatible endpoint, each configured by an entry of MIMIC_VOICE_PROVIDERS and
 * authenticated by a vault secret opened per call. docs/voices-external.md is the operator's
 * side of this.
 */
export { vaultCredentials, providerSecretProblems, SECRET_TYPE_OF, type CredentialOpener } from './credentials.ts';
export type { ExternalDeps } from './http.ts';
export { VOICE_LIST_TTL_MS, VOICE_LIST_RETRY_MS } from './cache.ts';
export { MAX_SAMPLE_BYTES } from './sample.ts';
export { createMicrosoftProvider, createElevenLabsProvider, createOpenAIProvider };

/**
 * The providers' dependencies from the platform: its guarded client, the vault-backed secret
 * opener (the tool path's) over the secrets store, its log and clock, and the audit trail for `secret.used`.
 */
export function externalDeps(p: Platform, settings: Pick<VoiceSettings, 'listTimeoutMs'>, stores: { secrets: SecretStore; audit: AuditStore }): ExternalDeps {
  return {
    client: p.client,
    credentials: vaultCredentials({ secretStore: stores.secrets, vault: p.vault, clock: p.clock, newId: p.newId }),
    log: p.log,
    clock: p.clock,
    listTimeoutMs: settings.listTimeoutMs,
    audit: { store: stores.audit, newId: p.newId },
  };
}

export function createExternalProvider(config: ExternalProviderConfig, deps: ExternalDeps): VoiceProvider {
  switch (config.type) {
    case 'microsoft':
      return createMicrosoftProvider(config, deps);
    case 'elevenlabs':
      return createElevenLabsProvider(config, deps);
    case 'openai':
      return createOpenAIProvider(config, deps);
  }
}

/** One provider per configured entry (the settings allow one entry per type). */
export function createExternalProviders(configs: readonly ExternalProviderConfig[], deps: ExternalDeps): VoiceProvider[] {
  return configs.map((c) => createExternalProvider(c, deps));
}
