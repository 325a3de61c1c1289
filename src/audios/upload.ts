import { ApiError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import { checkAudio, type AudioLimits } from '../media/audio.ts';
import { AUDIO_EXTENSIONS } from '../media/audio-formats.ts';

export interface AudioUploadDeps {
  media: MediaAccess;
  newId: IdFactory;
  storageScheme: string;
  limits: AudioLimits;
}

export interface UploadedAudio {
  id: string;
  /** A storage-scheme URL to pass as `script.audio_url`. */
  url: string;
  /** Seconds, measured by decoding the whole stream. */
  duration: number;
}

/** The media key of an uploaded audio. */
export const audioKey = (id: string, ext: string): string => `audios/${id}/audio.${ext}`;
export const AUDIO_ID = /^aud_[0-9a-z]{10,40}$/;

/** POST /audios: stores a checked audio in the caller's media store; answers its storage URL. */
export async function uploadAudio(deps: AudioUploadDeps, userId: string, bytes: Buffer): Promise<UploadedAudio> {
  const { ext, type, duration } = await checkAudio(bytes, deps.limits);
  const id = deps.newId('aud');
  const key = audioKey(id, ext);
  await deps.media.putBytes(userId, key, bytes, type);
  return { id, url: `${deps.storageScheme}://${key}`, duration };
}

/** DELETE /audios/{id}: removes the caller's audio; NotFoundError when there is none. */
export async function deleteAudio(deps: Pick<AudioUploadDeps, 'media'>, userId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!AUDIO_ID.test(id) || !(await Promise.all(AUDIO_EXTENSIONS.map((ext) => deps.media.exists(userId, audioKey(id, ext))))).includes(true)) {
    throw new ApiError('NotFoundError', 'audio not found');
  }
  await deps.media.removePrefix(userId, `audios/${id}/`);
  return { id, deleted: true };
}
