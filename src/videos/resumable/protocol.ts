/**
 * The tus 1.0.0 headers this service speaks (https://tus.io/protocols/resumable-upload): the
 * core protocol plus the creation, expiration and termination extensions. Parsing only: each
 * function takes a header's text and answers a value or throws the ApiError a client sees.
 */
import { ApiError } from '../../errors.ts';

export const TUS_VERSION = '1.0.0';
/** The content type of a PATCH body (tus core). */
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

const DIGITS = /^\d{1,16}$/;
/** A metadata key: printable ASCII without spaces and commas (tus), kept short. */
const META_KEY = /^[!-+\--~]{1,128}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_META_PAIRS = 32;
const MAX_META_VALUE_BYTES = 1024;

/**
 * Tus-Resumable: absent is accepted where `required` is false (a plain GET or DELETE from a
 * browser page); any version but 1.0.0 is refused with 412, as tus asks.
 */
export function checkTusVersion(header: string | undefined, required: boolean): void {
  if (header === undefined && !required) return;
  if (header?.trim() === TUS_VERSION) return;
  throw new ApiError('TusVersionError', `This server speaks tus ${TUS_VERSION}: send the header Tus-Resumable: ${TUS_VERSION}`, [
    { field: 'Tus-Resumable', message: header === undefined ? 'is required' : `must be ${TUS_VERSION}` },
  ]);
}

/** A non-negative integer header (Upload-Length, Upload-Offset); `what` names it in the error. */
export function byteCount(header: string | undefined, what: 'Upload-Length' | 'Upload-Offset'): number {
  const text = header?.trim();
  if (text === undefined || text === '') throw new ApiError('BadRequestError', `Send the header ${what}`, [{ field: what, message: 'is required' }]);
  if (!DIGITS.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new ApiError('BadRequestError', `${what} must be a whole number of bytes`, [{ field: what, message: 'must be a non-negative integer' }]);
  }
  return Number(text);
}

/**
 * Upload-Metadata: `key base64value` pairs separated by commas (the value may be left out).
 * Values are decoded as UTF-8 text (a file name, a content type); anything else is refused.
 */
export function parseMetadata(header: string | undefined): Record<string, string> {
  // A Map, then fromEntries: a key such as __proto__ stays a plain key.
  const out = new Map<string, string>();
  if (header === undefined || header.trim() === '') return {};
  const pairs = header.split(',');
  const bad = (message: string) => new ApiError('BadRequestError', `Upload-Metadata is malformed: ${message}`, [{ field: 'Upload-Metadata', message }]);
  if (pairs.length > MAX_META_PAIRS) throw bad(`at most ${MAX_META_PAIRS} keys`);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for (const pair of pairs) {
    const [key, value = '', ...rest] = pair.trim().split(' ');
    if (key === undefined || !META_KEY.test(key) || rest.length > 0) throw bad('each pair is a key (no spaces or commas), a space and a base64 value');
    if (out.has(key)) throw bad(`the key ${key} is given twice`);
    if (!BASE64.test(value)) throw bad(`the value of ${key} is not base64`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length > MAX_META_VALUE_BYTES) throw bad(`the value of ${key} is longer than ${MAX_META_VALUE_BYTES} bytes`);
    try {
      out.set(key, utf8.decode(bytes));
    } catch {
      throw bad(`the value of ${key} is not UTF-8 text`);
    }
  }
  return Object.fromEntries(out);
}

/** Upload-Expires is an HTTP date (RFC 9110). */
export const httpDate = (ms: number): string => new Date(ms).toUTCString();

/** Upload-Metadata as a HEAD answers it: the pairs given at creation, values in base64 again. */
export const formatMetadata = (metadata: Record<string, string>): string =>
  Object.entries(metadata).map(([key, value]) => (value === '' ? key : `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)).join(',');
