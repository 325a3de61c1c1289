import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import { runFfmpeg } from '../compute/local/ffmpeg.ts';
import { AUDIO_EXTENSIONS, AUDIO_FORMATS } from '../media/audio-formats.ts';

/** The limits of an audio a script speaks (the hosted service's for clips: 15 MB and 5 minutes). */
export const AUDIO_LIMITS = { maxBytes: 15 * 1024 * 1024, maxSeconds: 300 } as const;

export interface AudioLimits {
  maxBytes: number;
  maxSeconds: number;
}

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

const invalid = (why: string) => new ApiError('BadRequestError', `invalid audio: ${why}`, [{ field: 'audio', message: why }]);

/**
 * Decodes the first audio stream of `file` to the end (ffmpeg, a subprocess, so the request
 * path only waits) and answers its length in seconds, or undefined when nothing decodes.
 */
export async function measureAudio(file: string): Promise<number | undefined> {
  const { code, stderr } = await runFfmpeg(['-v', 'info', '-i', file, '-map', '0:a:0', '-f', 'null', '-'], { timeoutMs: 60_000 });
  if (code !== 0) return undefined;
  // The last progress line's time= is how much audio decoded.
  const times = [...stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times.at(-1);
  if (!last) return undefined;
  return Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]);
}

/** Checks an audio file's bytes (format, size, a decodable stream, its length) and answers its format and duration. */
export async function checkAudio(bytes: Buffer, limits: AudioLimits): Promise<{ ext: string; type: string; duration: number }> {
  if (bytes.length === 0) throw invalid('the file is empty');
  if (bytes.length > limits.maxBytes) {
    throw new ApiError('InvalidFileSizeError', `The audio is larger than the limit of ${limits.maxBytes} bytes`, [
      { field: 'audio', message: `must be at most ${limits.maxBytes} bytes` },
    ]);
  }
  const format = AUDIO_FORMATS.find((f) => f.test(bytes));
  if (!format) throw invalid(`the file is not one of ${AUDIO_EXTENSIONS.join(', ')}`);
  const dir = await mkdtemp(join(tmpdir(), 'mimic-audio-'));
  try {
    const file = join(dir, `audio.${format.ext}`);
    await writeFile(file, bytes);
    const duration = await measureAudio(file);
    if (duration === undefined || duration <= 0) throw invalid(`the ${format.ext} file has no audio stream that decodes`);
    if (duration > limits.maxSeconds) {
      throw new ApiError('InvalidAudioDurationError', `The audio is ${duration.toFixed(1)} s long; the limit is ${limits.maxSeconds} s`, [
        { field: 'audio', message: `must be at most ${limits.maxSeconds} seconds` },
      ]);
    }
    return { ...format, duration: Math.round(duration * 1000) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
  if (!AUDIO_ID.test(id) || !AUDIO_EXTENSIONS.some((ext) => deps.media.find(userId, audioKey(id, ext)))) {
    throw new ApiError('NotFoundError', 'audio not found');
  }
  await deps.media.removePrefix(userId, `audios/${id}/`);
  return { id, deleted: true };
}
