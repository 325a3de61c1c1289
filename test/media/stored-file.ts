import type { LocalMediaStore, MediaStore } from '../../src/media/store.ts';

/** The local file of a stored object (tests that run on the local folder read results from disk), or null. */
export function storedFile(store: MediaStore, owner: string, key: string): string | null {
  if (store.kind !== 'local') throw new Error('storedFile reads the local folder; this test runs with media in S3');
  return (store as LocalMediaStore).find(owner, key);
}
