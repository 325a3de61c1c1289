/** Small test videos made with the bundled ffmpeg, for the footage tests. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FFMPEG_PATH } from '../../src/media/ffmpeg.ts';

export const PRESENTER = (name: string): string => join(import.meta.dirname, '../../assets/presenters', `${name}.jpg`);

/** Runs ffmpeg with `args` (after the usual quiet flags) and fails loudly when it fails. */
export function ffmpeg(...args: string[]): void {
  const r = spawnSync(FFMPEG_PATH, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${r.stderr}`);
}

/** A picture looped for `seconds` at 25 fps through the filter `vf`, H.264, with a tone when `audio`. */
export function stillVideo(out: string, picture: string, o: { seconds: number; vf?: string; audio?: boolean; extra?: string[] }): string {
  ffmpeg(
    '-loop', '1', '-framerate', '25', '-i', picture,
    ...(o.audio ? ['-f', 'lavfi', '-i', `sine=f=220:d=${o.seconds}`] : []),
    '-t', String(o.seconds), '-vf', `${o.vf ?? 'null'},format=yuv420p`,
    '-c:v', 'libx264', '-preset', 'ultrafast', ...(o.audio ? ['-c:a', 'aac', '-shortest'] : ['-an']), ...(o.extra ?? []), out,
  );
  return out;
}
