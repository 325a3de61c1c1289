/**
 * What the secrets capability offers the others: the credential of a stored secret for one
 * outbound call (`staticCredential`, `credentialOf` over `openSecretValues`), the oauth2
 * refresher that keeps an oauth2 secret's access token fresh (`OAUTH2_REFRESHER`, one per
 * process, provided by the secrets module) and its errors, and the store they read
 * (`SECRET_STORE`; its factory for an operator command that runs without the service). Other
 * capabilities import this file only, never the secrets folder's other files. The credential
 * itself and its masking are egress/'s (egress/credential.ts, egress/redact.ts).
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { OAuth2Refresher } from './oauth2/index.ts';
import type { SecretStore } from './store.ts';

export type { SecretDeps, SecretVault } from './deps.ts';
export type { SecretStore } from './store.ts';
export { secretStoreOn } from './store-pg.ts';
export { credentialOf, openSecretValues, staticCredential } from './resolve.ts';
export { ReauthorizationRequired, RefreshFailed, type OAuth2Refresher } from './oauth2/index.ts';
/** The OAuth redirect URI's path (under MIMIC_PUBLIC_URL): the studio shows it to register at a provider. */
export { CALLBACK_PATH as OAUTH2_CALLBACK_PATH } from './oauth2-connect/flow.ts';

/** The secrets store, built by the secrets module from the platform's handle: what opens a secret's sealed values. */
export const SECRET_STORE = defineServiceKey<SecretStore>('secretStore');

/** The oauth2 refresher: an oauth2 secret's current access token, refreshed once across processes when it expires. */
export const OAUTH2_REFRESHER = defineServiceKey<OAuth2Refresher>('oauth2Refresher');
