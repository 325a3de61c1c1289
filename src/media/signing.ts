import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed media URLs: `<publicUrl>/media/<owner>/<objectKey>?expires=<unix s>&signature=<sig>`,
 * sig = base64url HMAC-SHA256 over `<owner>/<objectKey>\n<expires>` under
 * deriveKey(master, 'signed-url'). The signature is the whole authorization: no API key.
 */

export interface SignMediaUrlInput {
  publicUrl: string;
  key: Buffer;
  owner: string;
  objectKey: string;
  ttlSeconds: number;
  /** Milliseconds since the epoch. */
  now: number;
}

const mac = (key: Buffer, owner: string, objectKey: string, expires: number): Buffer =>
  createHmac('sha256', key).update(`${owner}/${objectKey}\n${expires}`).digest();

export const encodeMediaPath = (owner: string, objectKey: string): string =>
  [owner, ...objectKey.split('/')].map(encodeURIComponent).join('/');

export function signMediaUrl(input: SignMediaUrlInput): string {
  const expires = Math.floor(input.now / 1000) + input.ttlSeconds;
  const signature = mac(input.key, input.owner, input.objectKey, expires).toString('base64url');
  const base = input.publicUrl.replace(/\/+$/, '');
  return `${base}/media/${encodeMediaPath(input.owner, input.objectKey)}?expires=${expires}&signature=${signature}`;
}

export type MediaSignatureCheck = 'ok' | 'invalid' | 'expired';

export interface VerifyMediaSignatureInput {
  key: Buffer;
  owner: string;
  objectKey: string;
  /** The raw query values; anything missing or malformed is 'invalid'. */
  expires: string | undefined;
  signature: string | undefined;
  now: number;
}

/** Checks authenticity first (constant time), then expiry, so only genuine URLs are told they expired. */
export function verifyMediaSignature(input: VerifyMediaSignatureInput): MediaSignatureCheck {
  const { expires, signature } = input;
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  // Compare the canonical text, not decoded bytes: base64url's last character carries two
  // unused bits, so decoding would accept four spellings of one signature.
  const expected = Buffer.from(mac(input.key, input.owner, input.objectKey, Number(expires)).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 <= input.now ? 'expired' : 'ok';
}
