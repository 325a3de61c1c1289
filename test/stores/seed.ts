import type { Dialect, OpenStores } from './dialects.ts';
import type { AllStores } from '../helpers/stores.ts';
import type { SecretRow, ToolRow } from '../../src/db/schema.ts';
import type { AuditRecord } from '../../src/audit/store.ts';

/** A user (and its first key) through the users store, as every contract's owner of rows. */
export async function seedUser(stores: AllStores, id: string, credits = 0): Promise<string> {
  await stores.users.create(
    { id, name: id, credits, permissions: [], createdAt: 0 },
    { id: `key_${id}`, hash: `hash_${id}`, prefix: 'mimic_seed', createdAt: 0 },
  );
  return id;
}

let n = 0;
export const audit = (userId: string, at: number, over: Partial<AuditRecord> = {}): AuditRecord => ({
  id: `aud_${String(++n).padStart(6, '0')}`, userId, at, action: 'secret.used', outcome: 'success', ...over,
});

export function secretRow(userId: string, id: string, createdAt: number, over: Partial<SecretRow> = {}): SecretRow {
  return {
    id, userId, provider: 'weather', type: 'bearer', headerName: null, tokenUrl: null, clientId: null, expiresAt: null, status: 'active',
    version: 1, createdAt, updatedAt: createdAt, clientAuthMethod: null, lastUsedAt: null, refreshedAt: null, lockOwner: null, lockUntil: null, ...over,
  };
}

export function toolRow(userId: string, id: string, createdAt: number, over: Partial<ToolRow> = {}): ToolRow {
  return {
    id, userId, name: 'get_weather', description: 'Weather', provider: 'weather', schema: '{"parameters":{"type":"object"}}',
    config: '{"type":"client"}', secretId: null, createdAt, updatedAt: createdAt, ...over,
  };
}

export const sealed = (field: string, kekId: string, tag = 'v1') => ({ field, kekId, wrappedKey: `wk-${field}-${tag}`, ciphertext: `ct-${field}-${tag}` });

/** A fresh database for one contract, closed after it whatever happens. */
export async function withDatabase(dialect: Dialect, fn: (db: OpenStores) => Promise<void>): Promise<void> {
  const db = await dialect.open();
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}
