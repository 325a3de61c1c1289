import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import { writeCapped } from '../media/capped.ts';
import { FootageError, probeVideo } from '../footage/probe.ts';

/** The containers a video upload may be, told apart by their first bytes. */
const CONTAINERS: { ext: string; type: string; test: (b: Buffer) => boolean }[] = [
  { ext: 'mov', type: 'video/quicktime', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' && b.toString('latin1', 8, 12) === 'qt  ' },
  { ext: 'mp4', type: 'video/mp4', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' },
  { ext: 'webm', type: 'video/webm', test: (b) => b.toString('hex', 0, 4) === '1a45dfa3' },
];

export interface VideoUploadDeps {
  media: MediaAccess;
  newId: IdFactory;
  storageScheme: string;
  maxBytes: number;
}

export interface UploadedVideo {
  id: string;
  /** A storage-scheme URL for a consent's or an avatar's `source_url`. */
  url: string;
  duration: number;
  width: number;
  height: number;
  has_audio: boolean;
  size: number;
}

const ID = /^vid_[A-Za-z0-9_-]{1,64}$/;

/**
 * POST /videos: the request body (the file's bytes) streamed to disk under the size limit,
 * checked (an mp4, mov or webm that decodes), and stored in the caller's media store; its
 * storage URL goes into `source_url` (a consent video, avatar footage).
 */
export async function uploadVideo(deps: VideoUploadDeps, userId: string, body: ReadableStream<Uint8Array> | null, declaredLength: string | undefined): Promise<UploadedVideo> {
  // 413 like every body over its limit (and so Connection: close, src/http/errors.ts).
  const tooLarge = () => new ApiError('PayloadTooLargeError', `The video is larger than the limit of ${deps.maxBytes} bytes`, [{ field: 'body', message: `must be at most ${deps.maxBytes} bytes` }]);
  if (declaredLength !== undefined && Number(declaredLength) > deps.maxBytes) throw tooLarge();
  const dir = await mkdtemp(join(tmpdir(), 'mimic-video-'));
  try {
    const file = join(dir, 'upload');
    const size = await writeCapped(body, file, deps.maxBytes, tooLarge);
    if (size === 0) throw new ApiError('BadRequestError', 'Send the video\'s bytes as the request body (e.g. curl --data-binary @video.mp4)');
    return await storeVideoFile(deps, userId, file, size);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The checks every uploaded video passes, and its storing: the file's first bytes must be an
 * mp4, mov or webm, its frames must decode, and a copy goes into the caller's media store
 * under a new `vid_` id. POST /videos and the last PATCH of a resumable upload
 * (src/videos/resumable/) both end here. The file itself is left where it is.
 */
export async function storeVideoFile(deps: Pick<VideoUploadDeps, 'media' | 'newId' | 'storageScheme'>, userId: string, file: string, size: number): Promise<UploadedVideo> {
  const head = Buffer.alloc(12);
  const handle = await open(file, 'r');
  await handle.read(head, 0, 12, 0).finally(() => handle.close());
  const container = CONTAINERS.find((c) => c.test(head));
  if (!container) throw new ApiError('BadRequestError', 'The body is not an mp4, mov or webm video');
  let probe;
  try {
    probe = await probeVideo(file);
  } catch (err) {
    if (err instanceof FootageError) throw new ApiError('BadRequestError', `The video does not decode: ${err.message}`);
    throw err;
  }
  const id = deps.newId('vid');
  const key = `videos/${id}.${container.ext}`;
  await deps.media.putFile(userId, key, file, container.type);
  return { id, url: `${deps.storageScheme}://${key}`, duration: probe.durationSec, width: probe.width, height: probe.height, has_audio: probe.hasAudio, size };
}

/** DELETE /videos/{id}. */
export async function deleteVideo(deps: VideoUploadDeps, userId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!ID.test(id)) throw new ApiError('NotFoundError', 'Video not found');
  let removed = false;
  for (const c of CONTAINERS) removed = (await deps.media.remove(userId, `videos/${id}.${c.ext}`)) || removed;
  if (!removed) throw new ApiError('NotFoundError', 'Video not found');
  return { id, deleted: true };
}
