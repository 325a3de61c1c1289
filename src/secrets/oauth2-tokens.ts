import { eq } from 'drizzle-orm';
import { secrets } from '../db/schema.ts';
import { recordAudit } from '../audit/store.ts';
import type { SecretDeps } from './deps.ts';
import type { OAuth2Grant, TokenStore } from './oauth2/token-store.ts';
import type { OAuth2RefreshEvent } from './oauth2/refresher.ts';
import { openSecretValues } from './resolve.ts';
import { getSecretById, writeSealedValues } from './store.ts';

/** The refresher's view of oauth2 secrets: always read fresh from the database, decrypted by the vault. */
export function createVaultTokenStore(deps: SecretDeps): TokenStore {
  return {
    async read(secretId) {
      const row = getSecretById(deps.store, secretId);
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
      };
      return grant;
    },

    async save(secretId, tokens) {
      const row = getSecretById(deps.store, secretId);
      if (!row) return;
      const sealed = await deps.vault.seal(row.userId, secretId, { access_token: tokens.accessToken, refresh_token: tokens.refreshToken });
      const now = deps.clock.now();
      deps.store.sqlite.transaction(() => {
        const current = getSecretById(deps.store, secretId);
        if (!current) return;
        deps.store.db
          .update(secrets)
          .set({ expiresAt: tokens.expiresAt, version: current.version + 1, refreshedAt: now, status: 'active' })
          .where(eq(secrets.id, secretId))
          .run();
        writeSealedValues(deps.store, secretId, sealed, { replaceAll: false });
      })();
    },

    async markNeedsReauthorization(secretId) {
      const row = getSecretById(deps.store, secretId);
      if (!row) return;
      deps.store.db.update(secrets).set({ status: 'needs_reauthorization', updatedAt: deps.clock.now() }).where(eq(secrets.id, secretId)).run();
    },
  };
}

/** One audit row per exchange with the token endpoint (not per waiting caller). */
export function auditRefresh(deps: SecretDeps, e: OAuth2RefreshEvent): void {
  recordAudit(deps.store, deps.newId, deps.clock.now(), {
    userId: e.userId,
    action: e.reason === 'invalid_grant' ? 'secret.needs_reauthorization' : 'secret.refreshed',
    outcome: e.outcome,
    secretId: e.secretId,
    ...(e.reason ? { detail: { reason: e.reason } } : {}),
  });
}
