import { and, count, desc, eq, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared.ts';
import type { Store } from '../db/client.ts';
import { olderThan } from '../db/keyset.ts';
import { secretFields, secrets, tools, type SecretRow } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';
import type { SealedValue } from '../vault/index.ts';

/** Reads and writes of secret rows. Transactions stay in the callers' synchronous blocks; nothing here awaits. */

export function getSecret(store: Store, userId: string, id: string): SecretRow | undefined {
  return store.db.select().from(secrets).where(and(eq(secrets.id, id), eq(secrets.userId, userId))).get();
}

export function getSecretById(store: Store, id: string): SecretRow | undefined {
  return prepared(store.db, 'getSecretById', (db) => db.select().from(secrets).where(eq(secrets.id, sql.placeholder('id'))).prepare()).get({ id });
}

export function sealedValuesOf(store: Store, secretId: string): SealedValue[] {
  return prepared(store.db, 'sealedValuesOf', (db) =>
    db
      .select({ field: secretFields.field, kekId: secretFields.kekId, wrappedKey: secretFields.wrappedKey, ciphertext: secretFields.ciphertext })
      .from(secretFields)
      .where(eq(secretFields.secretId, sql.placeholder('secretId')))
      .prepare(),
  ).all({ secretId });
}

export function listSecrets(store: Store, userId: string, limit: number, cursor: PageCursor | null): SecretRow[] {
  return store.db
    .select()
    .from(secrets)
    .where(and(eq(secrets.userId, userId), olderThan(secrets.createdAt, secrets.id, cursor)))
    .orderBy(desc(secrets.createdAt), desc(secrets.id))
    .limit(limit)
    .all();
}

/** Replaces the given encrypted values (one row per field) and removes fields not in `keep`. */
export function writeSealedValues(store: Store, secretId: string, values: SealedValue[], opts: { replaceAll: boolean }): void {
  if (opts.replaceAll) store.db.delete(secretFields).where(eq(secretFields.secretId, secretId)).run();
  for (const v of values) {
    store.db
      .insert(secretFields)
      .values({ secretId, ...v })
      .onConflictDoUpdate({
        target: [secretFields.secretId, secretFields.field],
        set: { kekId: v.kekId, wrappedKey: v.wrappedKey, ciphertext: v.ciphertext },
      })
      .run();
  }
}

export function toolsReferencing(store: Store, secretId: string, max = 20): string[] {
  return store.db.select({ id: tools.id }).from(tools).where(eq(tools.secretId, secretId)).limit(max).all().map((r) => r.id);
}

export function countSecrets(store: Store, userId: string): number {
  return store.db.select({ n: count() }).from(secrets).where(eq(secrets.userId, userId)).get()?.n ?? 0;
}
