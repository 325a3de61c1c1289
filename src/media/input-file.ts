import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { GuardedClient } from '../egress/client.ts';
import { EgressError } from '../egress/errors.ts';
import type { MediaAccess } from './index.ts';

/** What a job needs to turn an input URL into a local file. */
export interface InputFileDeps {
  client: GuardedClient;
  media: Pick<MediaAccess, 'localFile' | 'keyOfStorageUrl'>;
  config: Pick<Config, 'storageScheme' | 'fetch'>;
}

/** How one input is fetched, and the errors its failures become (each kind's own wording and kinds). */
export interface InputFile {
  url: string;
  /** The owner whose media store a storage-scheme URL names. */
  userId: string;
  /** Where a download goes. */
  workDir: string;
  /** The downloaded file's name in `workDir` (its extension tells decoders the format). */
  fileName: string;
  maxBytes: number;
  accept: (contentType: string) => boolean;
  /** The storage-scheme object is gone. */
  missing: () => Error;
  /** The download was larger than `maxBytes`. */
  tooLarge: (err: EgressError) => Error;
  /** Any other refused or failed download; `message` names the host at most, never the URL. */
  failed: (message: string) => Error;
}

/**
 * The local file of an input URL: the owner's media-store object for a storage-scheme URL (on S3, downloaded into `workDir`),
 * else a download through the guarded client, held to the size limit. Failures become the
 * caller's errors; anything that is not an egress failure is thrown as it is.
 */
export async function inputFile(deps: InputFileDeps, input: InputFile): Promise<string> {
  if (input.url.startsWith(`${deps.config.storageScheme}://`)) {
    const key = deps.media.keyOfStorageUrl(input.url);
    const found = key === null ? null : await deps.media.localFile(input.userId, key, input.workDir);
    if (!found) throw input.missing();
    return found;
  }
  const path = join(input.workDir, input.fileName);
  try {
    await deps.client.download(input.url, path, { maxBytes: input.maxBytes, timeoutMs: deps.config.fetch.timeoutMs, accept: input.accept });
  } catch (err) {
    if (!(err instanceof EgressError)) throw err;
    throw err.reason === 'too_large' ? input.tooLarge(err) : input.failed(err.message);
  }
  return path;
}
