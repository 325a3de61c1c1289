import { auditRecord, type AuditStore } from '../audit/contract.ts';
import type { SecretDeps } from './deps.ts';
import type { OAuth2Grant, TokenStore } from './oauth2/token-store.ts';
import type { OAuth2RefreshEvent } from './oauth2/refresher.ts';
import { openSecretValues } from './resolve.ts';

/** The refresher's view of oauth2 secrets: always read fresh from the database, decrypted by the vault. */
export function createVaultTokenStore(deps: SecretDeps): TokenStore {
  return {
    async read(secretId) {
      const row = await deps.secretStore.getById(secretId);
      if (!row || row.type !== 'oauth2') return null;
      const v = await openSecretValues(deps, row);
      const grant: OAuth2Grant = {
        secretId: row.id,
        userId: row.userId,
        tokenUrl: row.tokenUrl ?? '',
        clientId: row.clientId ?? '',
        clientSecret: v.client_secret ?? '',
        accessToken: v.access_token ?? '',
        refreshToken: v.refresh_token ?? '',
        expiresAt: row.expiresAt,
        status: row.status,
        version: row.version,
        ...(row.clientAuthMethod === 'client_secret_basic' ? { clientAuthMethod: 'client_secret_basic' as const } : {}),
      };
      return grant;
    },

    async save(secretId, tokens, seenVersion) {
      const row = await deps.secretStore.getById(secretId);
      if (!row) return;
      const sealed = await deps.vault.seal(row.userId, secretId, { access_token: tokens.accessToken, refresh_token: tokens.refreshToken });
      await deps.secretStore.saveTokens(secretId, tokens.expiresAt, deps.clock.now(), sealed, seenVersion);
    },

    async markNeedsReauthorization(secretId, seenVersion) {
      await deps.secretStore.markNeedsReauthorization(secretId, deps.clock.now(), seenVersion);
    },
  };
}

/** One audit row per exchange with the token endpoint (not per waiting caller). */
export async function auditRefresh(deps: SecretDeps & { audit: AuditStore }, e: OAuth2RefreshEvent): Promise<void> {
  await deps.audit.append(auditRecord(deps.newId, deps.clock.now(), {
    userId: e.userId,
    action: e.reason === 'invalid_grant' ? 'secret.needs_reauthorization' : 'secret.refreshed',
    outcome: e.outcome,
    secretId: e.secretId,
    ...(e.reason ? { detail: { reason: e.reason } } : {}),
  }));
}
