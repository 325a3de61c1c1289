import type { Clock } from '../clock.ts';
import { parseStorageUrl } from './keys.ts';
import { signMediaUrl } from './signing.ts';
import type { LocalMediaStore } from './store.ts';

export interface MediaAccessDeps {
  store: LocalMediaStore;
  /** config.publicUrl */
  publicUrl: string;
  /** deriveKey(config.masterKey, 'signed-url') */
  urlKey: Buffer;
  /** config.signedUrlTtlSeconds */
  ttlSeconds: number;
  /** config.storageScheme */
  scheme: string;
  clock: Clock;
}

/**
 * Makes a missing object that is listed before it exists (a presenter's talking preview):
 * resolves once the object is stored, throws an `ApiError` when it cannot be made now.
 */
export type MediaMaker = (owner: string, key: string, signal: AbortSignal) => Promise<void>;

/** The media operations the domain uses (it satisfies the animations' `MediaAccess`). */
export interface MediaAccess {
  find(owner: string, key: string): string | null;
  putFile(owner: string, key: string, file: string, contentType: string): Promise<void>;
  putBytes(owner: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  remove(owner: string, key: string): Promise<boolean>;
  removePrefix(owner: string, prefix: string): Promise<void>;
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
  return {
    find: (owner, key) => store.find(owner, key),
    putFile: async (owner, key, file, contentType) => {
      await store.put(owner, key, file, contentType);
    },
    putBytes: async (owner, key, bytes, contentType) => {
      await store.put(owner, key, bytes, contentType);
    },
    remove: (owner, key) => store.remove(owner, key),
    removePrefix: (owner, prefix) => store.removePrefix(owner, prefix),
    signedUrl: (owner, key) =>
      signMediaUrl({ publicUrl: deps.publicUrl, key: deps.urlKey, owner, objectKey: key, ttlSeconds: deps.ttlSeconds, now: deps.clock.now() }),
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
