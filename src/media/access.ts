import type { Clock } from '../clock.ts';
import { parseStorageUrl } from './keys.ts';
import { signMediaUrl } from './signing.ts';
import type { MediaStore } from './store.ts';
import type { S3MediaStore } from './s3-store.ts';

export interface MediaAccessDeps {
  store: MediaStore;
  /** config.publicUrl */
  publicUrl: string;
  /** deriveKey(config.masterKey, 'signed-url') */
  urlKey: Buffer;
  /** config.signedUrlTtlSeconds */
  ttlSeconds: number;
  /** config.storageScheme */
  scheme: string;
  clock: Clock;
  /** config.mediaUrls: 'presigned' hands out the bucket's own URLs (the store must be S3); mimic-signed /media URLs otherwise. */
  urls?: 'signed' | 'presigned';
}

/**
 * Makes a missing object that is listed before it exists (a presenter's talking preview):
 * resolves once the object is stored, throws an `ApiError` when it cannot be made now.
 */
export type MediaMaker = (owner: string, key: string, signal: AbortSignal) => Promise<void>;

/** The media operations the domain uses, the same on the local folder and on S3 (it satisfies the animations' `MediaAccess`). */
export interface MediaAccess {
  exists(owner: string, key: string): Promise<boolean>;
  /**
   * A local file with the object's bytes (for ffmpeg, sharp), or null when there is no such
   * object. On S3 it is a download into `workDir` (removed with it by the caller) or, without
   * one, into a bounded cache: read it soon, never write it.
   */
  localFile(owner: string, key: string, workDir?: string): Promise<string | null>;
  putFile(owner: string, key: string, file: string, contentType: string): Promise<void>;
  putBytes(owner: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  remove(owner: string, key: string): Promise<boolean>;
  removePrefix(owner: string, prefix: string): Promise<void>;
  /** The URL a client fetches the object at: mimic-signed (GET /media), or presigned by the bucket (MIMIC_MEDIA_URLS=presigned). */
  signedUrl(owner: string, key: string): string;
  keyOfStorageUrl(url: string): string | null;
  /** Registers the maker of the missing objects `matches` claims: GET /media waits for it instead of answering 404. */
  whenMissing(matches: (owner: string, key: string) => boolean, make: MediaMaker): void;
  /** Runs the maker that claims a missing object; false when none does. */
  make(owner: string, key: string, signal: AbortSignal): Promise<boolean>;
}

export function createMediaAccess(deps: MediaAccessDeps): MediaAccess {
  const { store } = deps;
  const makers: { matches: (owner: string, key: string) => boolean; make: MediaMaker }[] = [];
  const presigner = deps.urls === 'presigned' ? (store as S3MediaStore) : null;
  if (presigner && presigner.kind !== 's3') throw new Error('presigned media URLs need the S3 media store');
  const mimicSigned = (owner: string, key: string) =>
    signMediaUrl({ publicUrl: deps.publicUrl, key: deps.urlKey, owner, objectKey: key, ttlSeconds: deps.ttlSeconds, now: deps.clock.now() });
  return {
    exists: (owner, key) => store.exists(owner, key),
    localFile: (owner, key, workDir) => store.localFile(owner, key, workDir),
    putFile: async (owner, key, file, contentType) => {
      await store.put(owner, key, file, contentType);
    },
    putBytes: async (owner, key, bytes, contentType) => {
      await store.put(owner, key, bytes, contentType);
    },
    remove: (owner, key) => store.remove(owner, key),
    removePrefix: (owner, prefix) => store.removePrefix(owner, prefix),
    // An object a maker makes on demand keeps a mimic URL: the bucket would answer 404 before it exists, GET /media waits for it.
    signedUrl: (owner, key) =>
      presigner && !makers.some((m) => m.matches(owner, key)) ? presigner.presignGet(owner, key, deps.ttlSeconds, deps.clock.now()) : mimicSigned(owner, key),
    keyOfStorageUrl: (url) => parseStorageUrl(url, deps.scheme),
    whenMissing(matches, make) {
      makers.push({ matches, make });
    },
    async make(owner, key, signal) {
      const maker = makers.find((m) => m.matches(owner, key));
      if (!maker) return false;
      await maker.make(owner, key, signal);
      return true;
    },
  };
}
