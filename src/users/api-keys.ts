import { randomBytes } from 'node:crypto';

// The key's shape and reading it from an Authorization header belong to the caller (the kernel): re-exported for users' own files.
export { API_KEY_PATTERN, hashApiKey, connectionSplit, connectionIdFromAuthorization, keysFromAuthorization } from '../platform/caller.ts';

/**
 * API keys: 32 random bytes (256 bits), shown once, stored only as HMAC-SHA256 under a
 * key derived from the master key. With that much entropy a fast keyed hash is as safe as
 * a slow one, and verifying costs microseconds (platform/caller.ts `makeKeyVerifier` remembers
 * verified keys only until the database changes), so a revoked key
 * stops working in every process within 1 ms (users/store.ts KEYS_RECHECK_MS).
 */
export function generateApiKey(): string {
  return `mimic_${randomBytes(32).toString('base64url')}`;
}

export const keyPrefix = (apiKey: string): string => apiKey.slice(0, 12);
