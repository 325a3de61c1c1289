import { ApiError } from '../errors.ts';
import type { FieldError } from '../schemas/ajv.ts';
import type { Config } from '../config.ts';
import type { MediaAccess } from '../media/index.ts';
import type { SpeakingRequest } from './script.ts';

export interface StoredInputDeps {
  config: Pick<Config, 'storageScheme'>;
  media: Pick<MediaAccess, 'keyOfStorageUrl' | 'localFile'>;
}

const bad = (field: string, message: string): ApiError =>
  new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message } satisfies FieldError]);

/** The local file of a storage-scheme URL the caller owns (400 naming `field` otherwise); undefined for any other URL. */
export async function storedObject(deps: StoredInputDeps, userId: string, field: string, url: string | undefined): Promise<string | undefined> {
  const scheme = `${deps.config.storageScheme}://`;
  if (!url?.startsWith(scheme)) return undefined;
  const key = deps.media.keyOfStorageUrl(url);
  if (key === null) throw bad(field, `is not a valid ${scheme}<bucket>/<key> URL`);
  const path = await deps.media.localFile(userId, key);
  if (path === null) throw bad(field, 'names an object that does not exist in your media store');
  return path;
}

/** The fields of a speaking request that may name stored objects. */
type SpeakingRefs = Pick<SpeakingRequest, 'script' | 'result_url' | 'background'> & { config?: Pick<NonNullable<SpeakingRequest['config']>, 'logo'> };

/** The URLs of a speaking request the service will contact: inputs it fetches, the result it uploads, the webhook. */
export function outboundUrls(body: SpeakingRefs & { webhook?: string }): [string, string | undefined][] {
  const logo = body.config?.logo;
  return [
    ['script.audio_url', body.script.type === 'audio' ? body.script.audio_url : undefined],
    ['config.logo.url', typeof logo === 'object' ? logo.url : undefined],
    ['background.source_url', body.background?.source_url],
    ['result_url', body.result_url],
    ['webhook', body.webhook],
  ];
}

/** Storage-scheme URLs name objects the caller owns; answers the local file of each stored input. */
export async function storedInputs(deps: StoredInputDeps, userId: string, body: SpeakingRefs): Promise<{ audio?: string; logo?: string; background?: string }> {
  const scheme = `${deps.config.storageScheme}://`;
  const out: { audio?: string; logo?: string; background?: string } = {};
  const logo = body.config?.logo;
  const refs: ['audio' | 'logo' | 'background', string, string | undefined][] = [
    ['audio', 'script.audio_url', body.script.type === 'audio' ? body.script.audio_url : undefined],
    ['logo', 'config.logo.url', typeof logo === 'object' ? logo.url : undefined],
    ['background', 'background.source_url', body.background?.source_url],
  ];
  for (const [role, field, url] of refs) {
    const path = await storedObject(deps, userId, field, url);
    if (path) out[role] = path;
  }
  if (body.result_url?.startsWith(scheme) && deps.media.keyOfStorageUrl(body.result_url) === null) {
    throw bad('result_url', `is not a valid ${scheme}<bucket>/<key> URL`);
  }
  return out;
}
