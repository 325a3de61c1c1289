import { randomBytes } from 'node:crypto';
import { open, seal } from '../keys.ts';

/**
 * Envelope encryption of one credential value. Both pieces are keys.ts's AES-256-GCM text
 * `g1.<iv>.<tag>.<ct>` (base64url pieces, fresh 12-byte IV each):
 *   ciphertext  = value (UTF-8) under a fresh 32-byte data key (DEK), AAD = valueAad(owner)
 *   wrappedKey  = the DEK (as base64url text) under the KEK,          AAD = dataKeyAad(owner, kekId)
 * The value's AAD leaves out the KEK so rotation can re-wrap the DEK without touching the
 * ciphertext; the DEK's AAD includes it so a wrapped key cannot be relabelled to another KEK.
 */

/** The row a value belongs to; every part is bound into both AADs. */
export interface FieldOwner {
  userId: string;
  secretId: string;
  field: string;
}

// '|' separates the AAD parts; refusing it inside a part keeps every AAD unambiguous.
function part(name: string, value: string): string {
  if (value === '' || value.includes('|')) throw new Error(`${name} must be non-empty and must not contain "|"`);
  return value;
}

export const valueAad = (o: FieldOwner): string =>
  `mimic/secret/v1|${part('userId', o.userId)}|${part('secretId', o.secretId)}|${part('field', o.field)}`;

export const dataKeyAad = (o: FieldOwner, kekId: string): string =>
  `mimic/dek/v1|${part('userId', o.userId)}|${part('secretId', o.secretId)}|${part('field', o.field)}|${part('kekId', kekId)}`;

export function wrapDataKey(kek: Buffer, kekId: string, owner: FieldOwner, dek: Buffer): string {
  return seal(kek, dek.toString('base64url'), dataKeyAad(owner, kekId));
}

/** Throws (node's GCM error, no key material) when the wrapped key does not belong here. */
export function unwrapDataKey(kek: Buffer, kekId: string, owner: FieldOwner, wrappedKey: string): Buffer {
  const dek = Buffer.from(open(kek, wrappedKey, dataKeyAad(owner, kekId)), 'base64url');
  if (dek.length !== 32) throw new Error('data key has the wrong length');
  return dek;
}

export function sealValue(kek: Buffer, kekId: string, owner: FieldOwner, value: string): { wrappedKey: string; ciphertext: string } {
  const dek = randomBytes(32);
  return { wrappedKey: wrapDataKey(kek, kekId, owner, dek), ciphertext: seal(dek, value, valueAad(owner)) };
}

export function openValue(kek: Buffer, kekId: string, owner: FieldOwner, wrappedKey: string, ciphertext: string): string {
  return open(unwrapDataKey(kek, kekId, owner, wrappedKey), ciphertext, valueAad(owner));
}
