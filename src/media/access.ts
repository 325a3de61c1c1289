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

/** The media operations the domain uses (it satisfies the animations' `MediaAccess`). */
export interface MediaAccess {
  find(owner: string, key: string): string | null;
  putFile(owner: string, key: string, file: string, contentType: string): Promise<void>;
  putBytes(owner: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  remove(owner: string, key: string): Promise<boolean>;
  removePrefix(owner: string, prefix: string): Promise<void>;
  signedUrl(owner: string, key: string): string;
  keyOfStorageUrl(url: string): string | null;
}

export function createMediaAccess(deps: MediaAccessDeps): MediaAccess {
  const { store } = deps;
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
  };
}
