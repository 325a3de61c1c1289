import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { Route } from '../platform/module.ts';
import { ApiError } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { AppEnv } from '../http/env.ts';
import type { MediaStore } from '../media/store.ts';
import type { MediaAccess } from '../media/access.ts';
import { verifyMediaSignature } from '../media/signing.ts';

export interface MediaRouteDeps {
  store: MediaStore;
  /** deriveKey(config.masterKey, 'signed-url') */
  urlKey: Buffer;
  clock: Clock;
  /** Makes an object listed before it exists (MediaAccess.whenMissing); the request waits for it. */
  make?: MediaAccess['make'];
}

type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/** One `bytes=` range; null (serve everything) for anything else, as RFC 9110 permits. */
export function parseRange(header: string | undefined, size: number): ByteRange {
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

const denied = (description: string) => new ApiError('PermissionError', description);

/**
 * GET and HEAD /media/<owner>/<key...>?expires=&signature=: no API key, the signature is the
 * authorization. Streams the stored object (from the folder or the bucket) with Range support (players seek with it).
 */
export function mediaRoutes(deps: MediaRouteDeps): Route[] {
  // Hono answers HEAD with the GET handler (then drops the body): no file is opened for HEAD.
  const serve = async (c: Context<AppEnv>) => {
    const url = new URL(c.req.url);
    let segments: string[];
    try {
      segments = url.pathname.slice('/media/'.length).split('/').map((s) => decodeURIComponent(s));
    } catch {
      throw denied('The media URL signature is missing or invalid');
    }
    const [owner, ...rest] = segments;
    const objectKey = rest.join('/');
    const check = verifyMediaSignature({
      key: deps.urlKey,
      owner: owner ?? '',
      objectKey,
      expires: url.searchParams.get('expires') ?? undefined,
      signature: url.searchParams.get('signature') ?? undefined,
      now: deps.clock.now(),
    });
    if (check === 'expired') throw denied('The media URL has expired; fetch the resource again for a fresh URL');
    if (check !== 'ok') throw denied('The media URL signature is missing or invalid');

    let object = await deps.store.stat(owner!, objectKey);
    if (!object && (await deps.make?.(owner!, objectKey, c.req.raw.signal))) object = await deps.store.stat(owner!, objectKey);
    if (!object) throw new ApiError('NotFoundError', 'The media object was not found');

    const { etag } = object;
    const headers: Record<string, string> = {
      'content-type': object.contentType,
      'accept-ranges': 'bytes',
      'cache-control': 'private',
      etag,
      'last-modified': new Date(object.modifiedAt).toUTCString(),
      'x-content-type-options': 'nosniff',
      // Stored objects are user content served from our origin: never let them run as a page.
      'content-security-policy': "sandbox; default-src 'none'; media-src 'self'; img-src 'self'",
    };
    const ifRange = c.req.header('if-range');
    const range = ifRange && ifRange !== etag ? null : parseRange(c.req.header('range'), object.size);
    if (range === 'unsatisfiable') {
      return c.body(null, 416, { ...headers, 'content-range': `bytes */${object.size}` });
    }
    const { start, end } = range ?? { start: 0, end: object.size - 1 };
    const length = Math.max(0, end - start + 1);
    headers['content-length'] = String(length);
    if (range) headers['content-range'] = `bytes ${start}-${end}/${object.size}`;
    const status = range ? 206 : 200;
    if (c.req.method === 'HEAD' || length === 0) return c.body(null, status, headers);
    // Streamed from the store (a file, or the bucket's response) as the client reads it.
    const body = await deps.store.read(owner!, objectKey, { start, end });
    if (!body) throw new ApiError('NotFoundError', 'The media object was not found');
    return c.body(Readable.toWeb(body) as ReadableStream<Uint8Array>, status, headers);
  };
  return [
    {
      method: 'get', path: '/media/{path}', pattern: '/media/*', summary: 'A stored object at a signed, expiring URL (no API key)', tag: 'Media', access: 'public', security: [],
      params: [
        { name: 'path', in: 'path', description: 'owner/key (several segments)', required: true },
        { name: 'expires', in: 'query', description: 'unix seconds', required: true },
        { name: 'signature', in: 'query', description: 'HMAC signature', required: true },
      ],
      ok: { status: 200, description: 'the object (Range requests supported)', contentType: 'application/octet-stream' },
      errors: ['PermissionError', 'NotFoundError', 'ServiceUnavailableError'],
      handler: serve,
    },
  ];
}
