/** The rules an audio input meets (a script's audio, an upload): its format, its size, a stream that decodes, its length. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import { runFfmpeg } from './ffmpeg.ts';
import { AUDIO_EXTENSIONS, AUDIO_FORMATS } from './audio-formats.ts';


/** The limits of an audio a script speaks (the hosted service's for clips: 15 MB and 5 minutes). */
export const AUDIO_LIMITS = { maxBytes: 15 * 1024 * 1024, maxSeconds: 300 } as const;

export interface AudioLimits {
  maxBytes: number;
  maxSeconds: number;
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
