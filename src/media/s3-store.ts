import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config.ts';
import { assertValidKey, assertValidOwner, isValidKey, isValidOwner } from './keys.ts';
import { createFileCache } from './file-cache.ts';
import { presignGet, uriEncode } from './s3-presign.ts';
import { folderOfPrefix, type ListedObject, type MediaObject, type MediaStore } from './store.ts';

export interface S3MediaStore extends MediaStore {
  readonly kind: 's3';
  readonly bucket: string;
  /** A GET URL of the object signed for the bucket itself, valid `ttlSeconds` from `now` (ms). */
  presignGet(owner: string, key: string, ttlSeconds: number, now: number): string;
  /** Resolves once the bucket answers (readiness); throws otherwise. */
  check(): Promise<void>;
  /** Ends the client's connections. */
  close(): void;
}

const require = createRequire(import.meta.url);
/** The AWS SDK, loaded with the first S3 store: a process whose media are on disk never pays its half a second of loading. */
const sdk = () => ({ ...(require('@aws-sdk/client-s3') as typeof ClientS3), ...(require('@aws-sdk/lib-storage') as typeof LibStorage) });

/** Files at most this large go up in one PUT; larger ones, and streams, in parts of this size (two in flight: 16 MiB of memory at most). */
const PART_BYTES = 8 * 1024 * 1024;
const QUEUE = 2;

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

export function createS3Client(s: S3Settings): ClientS3.S3Client {
  return new (sdk().S3Client)({
    region: s.region,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    forcePathStyle: s.forcePathStyle,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    // Checksums only where S3 requires them: streamed bodies of unknown length cannot carry one (and Swift's s3api refuses the trailers).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
}

/**
 * Media in an S3 bucket: object `key` of owner U is `<prefix><U>/<key>`. Puts of files and
 * streams go up in parts as they are read; reads are the response stream itself.
 */
export function createS3MediaStore(s: S3Settings, opts: { cacheDir: string }): S3MediaStore {
  const { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, Upload } = sdk();
  const client = createS3Client(s);
  const Bucket = s.bucket;
  const cache = createFileCache({ dir: opts.cacheDir, maxBytes: s.cacheBytes });
  const name = (owner: string, key: string): string => {
    assertValidOwner(owner);
    assertValidKey(key);
    return `${s.prefix}${owner}/${key}`;
  };
  const origin = s.endpoint ? new URL(s.endpoint) : new URL(`https://s3.${s.region}.amazonaws.com`);
  const presignOrigin = s.forcePathStyle ? origin.origin : `${origin.protocol}//${Bucket}.${origin.host}`;
  const presignPath = (objectName: string): string => (s.forcePathStyle ? `/${uriEncode(Bucket)}/` : '/') + objectName.split('/').map(uriEncode).join('/');

  async function stat_(owner: string, key: string): Promise<MediaObject | null> {
    if (!isValidOwner(owner) || !isValidKey(key)) return null;
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket, Key: name(owner, key) }));
      return {
        size: head.ContentLength ?? 0,
        contentType: head.ContentType ?? 'application/octet-stream',
        modifiedAt: head.LastModified?.getTime() ?? 0,
        etag: head.ETag ?? `"${head.ContentLength}-${head.LastModified?.getTime()}"`,
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function read(owner: string, key: string, range?: { start: number; end: number }): Promise<Readable | null> {
    if (!isValidOwner(owner) || !isValidKey(key)) return null;
    try {
      const got = await client.send(new GetObjectCommand({ Bucket, Key: name(owner, key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      return got.Body as Readable;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function upload(Key: string, Body: Readable, ContentType: string): Promise<void> {
    await new Upload({ client, params: { Bucket, Key, Body, ContentType }, partSize: PART_BYTES, queueSize: QUEUE, leavePartsOnError: false }).done();
  }

  async function download(owner: string, key: string, to: string): Promise<boolean> {
    const body = await read(owner, key);
    if (!body) return false;
    await mkdir(dirname(to), { recursive: true });
    await pipeline(body, createWriteStream(to));
    return true;
  }

  async function* listUnder(prefix: string): AsyncGenerator<{ name: string; size: number }> {
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ...(ContinuationToken ? { ContinuationToken } : {}) }));
      for (const o of page.Contents ?? []) if (o.Key) yield { name: o.Key, size: o.Size ?? 0 };
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /** Deletes a batch of objects a few at a time (DeleteObjects needs a Content-MD5 that not every S3 server takes from the SDK). */
  async function deleteAll(prefix: string, also: string[] = []): Promise<void> {
    const names: string[] = [...also];
    const flush = async () => {
      const batch = names.splice(0);
      for (let i = 0; i < batch.length; i += 8) await Promise.all(batch.slice(i, i + 8).map((Key) => client.send(new DeleteObjectCommand({ Bucket, Key }))));
    };
    for await (const o of listUnder(prefix)) {
      names.push(o.name);
      if (names.length >= 256) await flush();
    }
    await flush();
  }

  return {
    kind: 's3',
    bucket: Bucket,
    stat: stat_,
    exists: async (owner, key) => (await stat_(owner, key)) !== null,
    read,

    async put(owner, key, source, contentType, opts = {}) {
      const Key = name(owner, key);
      if (Buffer.isBuffer(source)) {
        await client.send(new PutObjectCommand({ Bucket, Key, Body: source, ContentType: contentType, ContentLength: source.length }));
      } else if (source instanceof Readable) {
        await upload(Key, source, contentType);
      } else {
        const { size } = await stat(source);
        if (size <= PART_BYTES) await client.send(new PutObjectCommand({ Bucket, Key, Body: createReadStream(source), ContentType: contentType, ContentLength: size }));
        else await upload(Key, createReadStream(source), contentType);
        if (opts.move) await unlink(source);
      }
      const stored = await stat_(owner, key);
      if (!stored) throw new Error('the object was not found right after it was stored');
      return stored;
    },

    async localFile(owner, key, workDir) {
      if (workDir) {
        const to = join(workDir, 'media', owner, key);
        return (await download(owner, key, to)) ? to : null;
      }
      const object = await stat_(owner, key);
      if (!object) return null;
      let found = true;
      const file = await cache.file(`${owner}/${key}\n${object.etag}`, extname(key).toLowerCase(), async (to) => {
        found = await download(owner, key, to);
        if (!found) throw Object.assign(new Error('gone'), { name: 'NotFound' });
      }).catch((err: unknown) => {
        if (!found) return null;
        throw err;
      });
      return file;
    },

    async remove(owner, key) {
      const Key = name(owner, key);
      if (!(await stat_(owner, key))) return false;
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
      return true;
    },

    async removePrefix(owner, prefix) {
      const folder = name(owner, folderOfPrefix(prefix));
      await deleteAll(`${folder}/`, [folder]);
    },

    async removeOwner(owner) {
      assertValidOwner(owner);
      await deleteAll(`${s.prefix}${owner}/`);
    },

    async *list(owner) {
      if (owner !== undefined) assertValidOwner(owner);
      for await (const o of listUnder(`${s.prefix}${owner === undefined ? '' : `${owner}/`}`)) {
        const rest = o.name.slice(s.prefix.length);
        const slash = rest.indexOf('/');
        const item: ListedObject = { owner: rest.slice(0, slash), key: rest.slice(slash + 1), size: o.size };
        if (slash > 0 && isValidOwner(item.owner) && isValidKey(item.key)) yield item;
      }
    },

    presignGet: (owner, key, ttlSeconds, now) =>
      presignGet({ origin: presignOrigin, path: presignPath(name(owner, key)), region: s.region, accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey }, ttlSeconds, now),

    async check() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },

    close: () => client.destroy(),
  };
}
