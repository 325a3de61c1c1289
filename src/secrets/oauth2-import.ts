import type { SecretRow } from '../db/schema.ts';
import { auditRecord } from '../audit/contract.ts';
import type { SecretView } from './schemas.ts';
import type { SecretDeps } from './deps.ts';
import { presentSecret } from './present.ts';
import type { ClientAuthMethod } from './oauth2/token-store.ts';

export interface OAuth2Import {
  userId: string;
  provider: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token stays valid from now. */
  expiresIn: number;
  /** Replace the grant of this existing oauth2 secret (re-authorization) instead of creating one. */
  secretId?: string;
  /** How the client authenticates when refreshing; absent: client_secret_post. 'none' (a public client) has no client secret. */
  clientAuthMethod?: ClientAuthMethod | 'none';
}

export class ImportError extends Error {}

const PRINTABLE = /^[\x21-\x7e]+$/;

function check(input: OAuth2Import): void {
  let url: URL;
  try {
    url = new URL(input.tokenUrl);
  } catch {
    throw new ImportError('--token-url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:') throw new ImportError('--token-url must be an https URL (tokens are exchanged there)');
  if (url.username || url.password) throw new ImportError('--token-url must not carry user:password@');
  if (!input.provider.trim() || input.provider.length > 200) throw new ImportError('--provider must be 1 to 200 characters');
  const publicClient = input.clientAuthMethod === 'none';
  if (publicClient && input.clientSecret !== '') throw new ImportError('a public client (auth method none) has no client secret');
  const values = [['--client-id', input.clientId], ...(publicClient ? [] : [['--client-secret', input.clientSecret]]), ['--access-token', input.accessToken], ['--refresh-token', input.refreshToken]] as const;
  for (const [flag, value] of values) {
    if (!PRINTABLE.test(value) || value.length > 8192) throw new ImportError(`${flag} must be 1 to 8192 printable ASCII characters without spaces`);
  }
  if (!Number.isSafeInteger(input.expiresIn) || input.expiresIn < 0) throw new ImportError('--expires-in must be a whole number of seconds, 0 or more');
}

/**
 * Stores an existing oauth2 grant (what the studio will do after its consent screen). With
 * `secretId` it replaces that secret's grant and clears `needs_reauthorization`.
 */
export async function importOAuth2Grant(deps: SecretDeps, input: OAuth2Import): Promise<SecretView> {
  check(input);
  if (!(await deps.secretStore.userExists(input.userId))) throw new ImportError(`user ${input.userId} does not exist`);
  if (input.secretId) {
    const existing = await deps.secretStore.get(input.userId, input.secretId);
    if (!existing) throw new ImportError(`secret ${input.secretId} does not exist for user ${input.userId}`);
    if (existing.type !== 'oauth2') throw new ImportError(`secret ${input.secretId} is a ${existing.type} secret, not oauth2`);
  }
  const id = input.secretId ?? deps.newId('sec');
  const sealed = await deps.vault.seal(input.userId, id, {
    access_token: input.accessToken,
    refresh_token: input.refreshToken,
    ...(input.clientSecret ? { client_secret: input.clientSecret } : {}),
  });
  const now = deps.clock.now();
  const grant = {
    provider: input.provider, tokenUrl: input.tokenUrl, clientId: input.clientId,
    clientAuthMethod: input.clientAuthMethod && input.clientAuthMethod !== 'client_secret_post' ? input.clientAuthMethod : null,
    expiresAt: now + input.expiresIn * 1000,
  };
  if (input.secretId) {
    const updated = await deps.secretStore.replaceGrant(input.userId, id, { ...grant, updatedAt: now }, sealed,
      auditRecord(deps.newId, now, { userId: input.userId, action: 'secret.updated', outcome: 'success', secretId: id, detail: { type: 'oauth2', changed: ['grant'] } }),
    );
    if (!updated) throw new ImportError(`secret ${id} was deleted meanwhile`);
    return presentSecret(updated);
  }
  const created: SecretRow = {
    id, userId: input.userId, type: 'oauth2', headerName: null, ...grant, status: 'active', version: 1,
    createdAt: now, updatedAt: now, lastUsedAt: null, refreshedAt: null, lockOwner: null, lockUntil: null,
  };
  await deps.secretStore.create(created, sealed,
    auditRecord(deps.newId, now, { userId: input.userId, action: 'secret.created', outcome: 'success', secretId: id, detail: { type: 'oauth2', provider: input.provider } }),
  );
  return presentSecret(created);
}
