import { createHmac, randomBytes } from 'node:crypto';

/**
 * API keys: 32 random bytes (256 bits), shown once, stored only as HMAC-SHA256 under a
 * key derived from the master key. With that much entropy a fast keyed hash is as safe as
 * a slow one, and verifying costs microseconds (accounts.ts `makeKeyVerifier` remembers
 * verified keys only until the database changes), so a revoked key
 * stops working on the next request in every process.
 */
export const API_KEY_PATTERN = /^mimic_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return `mimic_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(hashKey: Buffer, apiKey: string): string {
  return createHmac('sha256', hashKey).update(apiKey).digest('base64url');
}

export const keyPrefix = (apiKey: string): string => apiKey.slice(0, 12);

/** `<credential>~<connection id>` (what the hosted service's agents SDK sends), or the credential alone. */
export function connectionSplit(token: string): { credential: string; connectionId?: string } {
  const tilde = token.indexOf('~');
  return tilde < 0 ? { credential: token } : { credential: token.slice(0, tilde), connectionId: token.slice(tilde + 1) };
}

/** The connection id an Authorization header ends in (`Basic <key>~<connection id>`), if any. */
export function connectionIdFromAuthorization(header: string | undefined): string | undefined {
  const m = header ? /^(?:Basic|Bearer)\s+(\S+)\s*$/i.exec(header) : null;
  const id = m ? connectionSplit(m[1]!).connectionId : undefined;
  return id === '' ? undefined : id;
}

/**
 * The key candidates an Authorization header carries. `Basic <API_KEY>` is the documented
 * form; RFC 7617 clients send `Basic base64(user:key)` (the key as password, or as user
 * with an empty password); `Bearer <API_KEY>` is accepted too. Each may end in
 * `~<connection id>`, which is dropped.
 */
export function keysFromAuthorization(header: string | undefined): string[] {
  if (!header) return [];
  const m = /^(Basic|Bearer)\s+(\S+)\s*$/i.exec(header);
  if (!m) return [];
  // The hosted service's SDK appends `~<connection id>` to the credential; it is not part of the key.
  const token = connectionSplit(m[2]!).credential;
  const candidates = [token];
  if (m[1]!.toLowerCase() === 'basic' && !API_KEY_PATTERN.test(token)) {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) candidates.push(decoded.slice(colon + 1), decoded.slice(0, colon));
    else candidates.push(decoded);
  }
  return candidates.filter((k) => API_KEY_PATTERN.test(k));
}
