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

function buildMediaUrl(input: SignMediaUrlInput, expires: number): string {
  const signature = signText(input.key, canonical(input.owner, input.objectKey, expires));
  const base = input.publicUrl.replace(/\/+$/, '');
  return `${base}/media/${encodeMediaPath(input.owner, input.objectKey)}?expires=${expires}&signature=${signature}`;
}

/** URLs remembered per expiry second and signing key; past this many in one second, the memory starts over. */
const REMEMBERED_URLS = 1000;

/**
 * The URLs signed in the current expiry second, per signing key: a URL is a function of the
 * key, the public URL, the owner, the object key and the expiry second, so a record read again
 * within the same second (a client polling it) gets the same URL without another HMAC. The
 * memory holds one second's URLs: a new second starts it over.
 */
const signedThisSecond = new WeakMap<Buffer, { expires: number; publicUrl: string; urls: Map<string, string> }>();

export function signMediaUrl(input: SignMediaUrlInput): string {
  const expires = expiresAt(input.now, input.ttlSeconds);
  let memory = signedThisSecond.get(input.key);
  if (!memory || memory.expires !== expires || memory.publicUrl !== input.publicUrl) {
    memory = { expires, publicUrl: input.publicUrl, urls: new Map() };
    signedThisSecond.set(input.key, memory);
  }
  // The owner's length makes the pair unambiguous (an owner or key may hold any character).
  const id = `${input.owner.length}:${input.owner}${input.objectKey}`;
  let url = memory.urls.get(id);
  if (url === undefined) {
    url = buildMediaUrl(input, expires);
    if (memory.urls.size >= REMEMBERED_URLS) memory.urls.clear();
    memory.urls.set(id, url);
  }
  return url;
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
