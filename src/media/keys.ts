import { ApiError } from '../errors.ts';

/**
 * Object keys name files inside one owner's folder: `<mediaDir>/<owner>/<key>`. The rules
 * make escaping that folder impossible by construction: relative, `/`-separated segments,
 * each starting with a letter, digit or `_` (so no `.`, `..` or hidden names, which the
 * store keeps for its own sidecar and temporary files), from a small safe alphabet.
 */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._~+=@,-]*$/;
const OWNER = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;
export const MAX_KEY_LENGTH = 1024;
const MAX_SEGMENT_LENGTH = 255;
const MAX_DEPTH = 16;

/** Null when the key is acceptable, else why not. */
export function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'is empty';
  if (key.length > MAX_KEY_LENGTH) return `is longer than ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith('/')) return 'must be relative';
  const segments = key.split('/');
  if (segments.length > MAX_DEPTH) return `has more than ${MAX_DEPTH} path segments`;
  for (const segment of segments) {
    if (segment === '') return 'has an empty path segment';
    if (segment.length > MAX_SEGMENT_LENGTH) return `has a path segment longer than ${MAX_SEGMENT_LENGTH} characters`;
    if (!SEGMENT.test(segment)) return 'has a path segment with characters other than letters, digits and ._~+=@,- (or starting with one of .~+=@,-)';
  }
  return null;
}

export const isValidKey = (key: string): boolean => keyProblem(key) === null;
export const isValidOwner = (owner: string): boolean => typeof owner === 'string' && OWNER.test(owner);

export function assertValidKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new ApiError('ValidationError', `The object key ${problem}`);
}

export function assertValidOwner(owner: string): void {
  if (!isValidOwner(owner)) throw new ApiError('ValidationError', 'The media owner id is not valid');
}

/**
 * `<scheme>://<bucket>/<key...>` to the object key `<bucket>/<key...>` in the caller's own
 * namespace, or null when the URL is not of that scheme or not a valid key. The same URL
 * given by two users names two different objects: isolation comes from the namespace,
 * not from bucket permissions.
 */
export function parseStorageUrl(url: string, scheme: string): string | null {
  const prefix = `${scheme.toLowerCase()}://`;
  if (typeof url !== 'string' || url.slice(0, prefix.length).toLowerCase() !== prefix) return null;
  const rest = url.slice(prefix.length);
  if (/[?#\\]/.test(rest)) return null;
  let key: string;
  try {
    key = rest.split('/').map((s) => decodeURIComponent(s)).join('/');
  } catch {
    return null;
  }
  const [bucket, ...path] = key.split('/');
  if (!bucket || path.length === 0 || bucket.includes('@') || bucket.includes(':')) return null;
  return isValidKey(key) ? key : null;
}

/** The inverse of parseStorageUrl. */
export const storageUrlOf = (scheme: string, objectKey: string): string => `${scheme}://${objectKey}`;
