import { checkSignature, expiresAt, signText, type SignatureCheck } from '../url-signature.ts';

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

const canonical = (owner: string, objectKey: string, expires: number): string => `${owner}/${objectKey}\n${expires}`;

export const encodeMediaPath = (owner: string, objectKey: string): string =>
  [owner, ...objectKey.split('/')].map(encodeURIComponent).join('/');

export function signMediaUrl(input: SignMediaUrlInput): string {
  const expires = expiresAt(input.now, input.ttlSeconds);
  const signature = signText(input.key, canonical(input.owner, input.objectKey, expires));
  const base = input.publicUrl.replace(/\/+$/, '');
  return `${base}/media/${encodeMediaPath(input.owner, input.objectKey)}?expires=${expires}&signature=${signature}`;
}

export type MediaSignatureCheck = SignatureCheck;

export interface VerifyMediaSignatureInput {
  key: Buffer;
  owner: string;
  objectKey: string;
  /** The raw query values; anything missing or malformed is 'invalid'. */
  expires: string | undefined;
  signature: string | undefined;
  now: number;
}

/** Authenticity first (constant time), then expiry: see url-signature.ts. */
export function verifyMediaSignature(input: VerifyMediaSignatureInput): MediaSignatureCheck {
  return checkSignature(input.key, (expires) => canonical(input.owner, input.objectKey, expires), input.expires, input.signature, input.now);
}
