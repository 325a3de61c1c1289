/**
 * What a video file holds, from the bundled ffmpeg (there is no ffprobe): the header facts of
 * `ffmpeg -i`, then a real decode of the first frame and of one in the middle, so a file whose
 * header looks right but whose pictures do not decode is refused too.
 */
import { parseProbe, runFfmpeg } from '../media/ffmpeg.ts';

export interface VideoProbe {
  durationSec: number;
  width: number;
  height: number;
  fps: number;
  videoCodec: string;
  hasAudio: boolean;
  audioCodec: string | null;
}

export class FootageError extends Error {
  constructor(readonly reason: 'undecodable' | 'no-video', message: string) {
    super(message);
    this.name = 'FootageError';
  }
}

/** The video stream's input options of a file read from `atSec` (input seeking: fast, and frame-accurate when decoding). */
export const seekArgs = (path: string, atSec: number): string[] => [...(atSec > 0 ? ['-ss', atSec.toFixed(3)] : []), '-i', path];

/** Decodes the frame at `atSec` to a 16x16 grey thumbnail; true when a picture came out. */
async function decodesAt(path: string, atSec: number, signal?: AbortSignal): Promise<boolean> {
  const r = await runFfmpeg(['-v', 'error', ...seekArgs(path, atSec), '-map', '0:v:0', '-frames:v', '1', '-vf', 'scale=16:16', '-pix_fmt', 'gray', '-f', 'rawvideo', 'pipe:1'], { signal, timeoutMs: 60_000 });
  return r.code === 0 && r.stdout.length === 256;
}

/** The duration by decoding the whole file (for a file whose header has none, e.g. a live-recorded WebM). */
async function decodedDuration(path: string, signal?: AbortSignal): Promise<number | undefined> {
  const r = await runFfmpeg(['-i', path, '-map', '0:v:0', '-f', 'null', '-'], { signal, timeoutMs: 30 * 60_000 });
  const times = [...r.stderr.matchAll(/time=(\d+):(\d+):(\d+(?:\.\d+)?)/g)];
  const last = times.at(-1);
  return last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : undefined;
}

/** Still-picture demuxers: a single image is not a video. */
const IMAGE_FORMAT = /^(image2|\w+_pipe)$/;

export async function probeVideo(path: string, signal?: AbortSignal): Promise<VideoProbe> {
  const head = await runFfmpeg(['-i', path], { signal, timeoutMs: 60_000 });
  if (!/Input #0/.test(head.stderr)) throw new FootageError('undecodable', 'ffmpeg cannot read the file as media');
  const info = parseProbe(head.stderr);
  if (!info.video || IMAGE_FORMAT.test(info.format ?? '')) throw new FootageError('no-video', 'the file has no video stream');
  const durationSec = info.durationSec ?? (await decodedDuration(path, signal));
  if (durationSec === undefined || durationSec <= 0) throw new FootageError('undecodable', 'the video has no decodable duration');
  if (!(await decodesAt(path, 0, signal))) throw new FootageError('undecodable', 'the first frame does not decode');
  if (!(await decodesAt(path, durationSec / 2, signal))) throw new FootageError('undecodable', `the frame at ${(durationSec / 2).toFixed(1)} s does not decode`);
  return {
    durationSec,
    width: info.video.width,
    height: info.video.height,
    fps: info.video.fps ?? 0,
    videoCodec: info.video.codec,
    hasAudio: info.audio !== undefined,
    audioCodec: info.audio?.codec ?? null,
  };
}
