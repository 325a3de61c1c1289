import { spawnSync } from 'node:child_process';
import ffmpeg from '@ffmpeg-installer/ffmpeg';

/** What ffmpeg says of a video file: container, streams, size, and the frames it decodes. */
export function probeVideo(file: string) {
  const info = spawnSync(ffmpeg.path, ['-hide_banner', '-i', file], { encoding: 'utf8' }).stderr;
  const decode = spawnSync(ffmpeg.path, ['-hide_banner', '-v', 'error', '-stats', '-i', file, '-map', '0:v:0', '-f', 'null', '-'], { encoding: 'utf8' });
  const frames = [...decode.stderr.matchAll(/frame=\s*(\d+)/g)].map((m) => Number(m[1])).at(-1) ?? 0;
  const size = /Video: .*?, (\d{2,5})x(\d{2,5})/.exec(info);
  return {
    container: /Input #0, ([\w,]+), from/.exec(info)?.[1] ?? '',
    majorBrand: /major_brand\s*:\s*(\S+)/.exec(info)?.[1] ?? '',
    hasVideo: /Stream #\S+.*Video: h264/.test(info),
    hasAudio: /Stream #\S+.*Audio:/.test(info),
    width: size ? Number(size[1]) : 0,
    height: size ? Number(size[2]) : 0,
    frames,
    decodeErrors: decode.status === 0 ? '' : decode.stderr,
  };
}

/** Frame `index` as raw 8-bit gray pixels (width × height). */
export function grayFrame(file: string, index: number, width: number, height: number): Buffer {
  const res = spawnSync(
    ffmpeg.path,
    ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-vframes', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const buf = res.stdout as Buffer;
  if (buf.length !== width * height) throw new Error(`frame ${index}: got ${buf.length} bytes`);
  return buf;
}

/** Mean absolute difference of two gray frames inside a box. */
export function meanDiff(a: Buffer, b: Buffer, width: number, box: { x: number; y: number; w: number; h: number }): number {
  let sum = 0;
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) sum += Math.abs(a[y * width + x]! - b[y * width + x]!);
  }
  return sum / (box.w * box.h);
}
