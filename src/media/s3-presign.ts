import { createHash, createHmac } from 'node:crypto';

/**
 * Presigned GET URLs of S3 objects (SigV4 query authentication), computed synchronously: media
 * URLs are signed while a record is presented, which is synchronous all the way up (records,
 * lists, webhooks). The AWS SDK's presigner answers a promise only; the URL this makes for the
 * same inputs is the SDK's, byte for byte (test/media/s3-presign.test.ts compares them), and
 * the S3 server checks it like any other (Swift's s3api does in the tests).
 */
export interface PresignTarget {
  /** `https://s3.example.com` (path style) or the bucket's own origin (virtual-hosted style): no trailing slash. */
  origin: string;
  /** The URL path of the object: `/<bucket>/<key>` (path style) or `/<key>`, each segment encoded. */
  path: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
export const uriEncode = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, text: string): Buffer => createHmac('sha256', key).update(text, 'utf8').digest();
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** `20261128T104500Z` of milliseconds since the epoch (whole seconds). */
const amzDate = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** The signing keys of the current day (one per secret, region and day). */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string, day: string, region: string): Buffer {
  const id = `${day}\n${region}\n${secret}`;
  let key = signingKeys.get(id);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 's3'), 'aws4_request');
    if (signingKeys.size > 16) signingKeys.clear();
    signingKeys.set(id, key);
  }
  return key;
}

export function presignGet(target: PresignTarget, expiresInSeconds: number, now: number): string {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const scope = `${day}/${target.region}/s3/aws4_request`;
  const host = new URL(target.origin).host;
  const query: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Content-Sha256', 'UNSIGNED-PAYLOAD'],
    ['X-Amz-Credential', `${target.accessKeyId}/${scope}`],
    ['X-Amz-Date', date],
    ['X-Amz-Expires', String(expiresInSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
    ['x-id', 'GetObject'],
  ];
  const canonicalQuery = query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).sort().join('&');
  const canonicalRequest = ['GET', target.path, canonicalQuery, `host:${host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(target.secretAccessKey, day, target.region)).update(stringToSign, 'utf8').digest('hex');
  const signed = [...query, ['X-Amz-Signature', signature]].map(([k, v]) => `${uriEncode(k!)}=${uriEncode(v!)}`).sort().join('&');
  return `${target.origin}${target.path}?${signed}`;
}
