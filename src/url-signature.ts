import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of every signed URL the service hands out (media objects, compute task
 * files): base64url HMAC-SHA256 of a canonical text that ends in the URL's expiry. The URL
 * itself is the whole authorization, so the check is strict about its spelling.
 */

export type SignatureCheck = 'ok' | 'invalid' | 'expired';

/** The signature of `text` under `key`. */
export const signText = (key: Buffer, text: string): string => createHmac('sha256', key).update(text).digest('base64url');

/** The `expires` (unix seconds) of a URL signed now for `ttlSeconds`. */
export const expiresAt = (now: number, ttlSeconds: number): number => Math.floor(now / 1000) + ttlSeconds;

/**
 * Checks a URL's raw `expires` and `signature` query values against `textFor(expires)`:
 * authenticity first (constant time), then expiry, so only genuine URLs are told they
 * expired. Anything missing or malformed is 'invalid'.
 */
export function checkSignature(
  key: Buffer,
  textFor: (expires: number) => string,
  expires: string | undefined,
  signature: string | undefined,
  now: number,
): SignatureCheck {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  // Compare the canonical text, not decoded bytes: base64url's last character carries two
  // unused bits, so decoding would accept four spellings of one signature.
  const expected = Buffer.from(signText(key, textFor(Number(expires))));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 <= now ? 'expired' : 'ok';
}
