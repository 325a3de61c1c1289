import type { Config } from '../config.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { MediaAccess } from './index.ts';
import { RenderError } from '../errors.ts';
import { isPolicyRefusal } from '../egress/errors.ts';

const VIDEO_CONTENT_TYPE = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm' } as const;

export interface DeliverDeps {
  client: GuardedClient;
  media: MediaAccess;
  config: Pick<Config, 'fetch'>;
}

/**
 * Puts a finished video where the request asked: an https upload URL (PUT), a storage-scheme
 * key, or `defaultKey` in the owner's media store. An upload the egress policy refuses (the
 * host now resolves to a refused address) is a RenderError, so the job ends at once, refunded:
 * rendering again cannot change it. Other upload failures are thrown as they are, for a retry.
 */
export async function deliverVideo(
  deps: DeliverDeps,
  input: { userId: string; target: string | undefined; defaultKey: string; file: string; format: keyof typeof VIDEO_CONTENT_TYPE },
): Promise<{ resultKey: string | null; resultExternalUrl: string | null }> {
  const contentType = VIDEO_CONTENT_TYPE[input.format];
  const { target } = input;
  if (target?.startsWith('https://')) {
    try {
      await deps.client.upload(target, input.file, { contentType, timeoutMs: deps.config.fetch.timeoutMs });
    } catch (err) {
      if (isPolicyRefusal(err)) throw new RenderError('ResultUrlError', `The result could not be delivered to result_url: ${err.message}`);
      throw err;
    }
    return { resultExternalUrl: target, resultKey: null };
  }
  const key = target ? deps.media.keyOfStorageUrl(target)! : input.defaultKey;
  await deps.media.putFile(input.userId, key, input.file, contentType);
  return { resultKey: key, resultExternalUrl: null };
}
