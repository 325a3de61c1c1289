/**
 * Footage for avatar training tests, made by ffmpeg: a built-in presenter picture on a larger
 * frame with a slow zoom (so the idle loop has motion to join), a voice on the first part and
 * silence after it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';

export const EILEEN = join(import.meta.dirname, '../../assets/presenters/eileen.jpg');

export interface FootageOptions {
  /** Length, seconds. */
  seconds: number;
  /** The voice (a sine at this frequency) lasts this long; silence after it. */
  voiceSec: number;
  voiceHz?: number;
  /** The picture; a flat colour frame (no face) when null. */
  picture?: string | null;
  /** Zoom period, seconds (the face breathes in and out). */
  zoomPeriodSec?: number;
}

/** Writes a 640x480, 25 fps H.264 + AAC mp4 to `path`. */
export function makeFootage(path: string, o: FootageOptions): string {
  const picture = o.picture === undefined ? EILEEN : o.picture;
  const period = Math.round((o.zoomPeriodSec ?? 7) * 25);
  const video = picture
    ? ['-loop', '1', '-framerate', '25', '-t', String(o.seconds), '-i', picture]
    : ['-f', 'lavfi', '-i', `color=c=0x557733:s=640x480:r=25:d=${o.seconds}`];
  const zoom = `zoompan=z='1.05+0.05*sin(2*PI*on/${period})':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=640x480:fps=25`;
  const r = spawnSync(ffmpeg.path, [
    '-y', '-v', 'error', ...video,
    '-f', 'lavfi', '-i', `sine=frequency=${o.voiceHz ?? 180}:duration=${o.voiceSec}:sample_rate=16000`,
    '-filter_complex', `[0:v]${picture ? 'scale=360:360,pad=640:480:140:60:color=0x335577,' : ''}${zoom},format=yuv420p[v];[1:a]volume=0.5,apad[a]`,
    '-map', '[v]', '-map', '[a]', '-t', String(o.seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-ac', '1', path,
  ], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffmpeg could not make the footage: ${r.stderr}`);
  return path;
}
