import { rename } from 'node:fs/promises';
import type { RenderMetadata, ResultFormat } from '../interface.ts';
import { alphaWebmOutputs, joinAlphaParts, resultCodecs } from './ffmpeg.ts';
import { runFfmpeg } from '../../media/ffmpeg.ts';

/**
 * A render's `outputResolution`: the larger side of the result, aspect kept (even sides for the codec), alpha kept.
 * The file is replaced; the metadata gives the new resolution.
 */
export async function resize(file: string, format: ResultFormat, alpha: boolean, side: number, metadata: RenderMetadata): Promise<RenderMetadata> {
  const [w, h] = metadata.resolution.map(Number) as [number, number];
  const scale = side / Math.max(w, h);
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  const [nw, nh] = [even(w), even(h)];
  if (nw === w && nh === h) return metadata;
  const out = `${file}.scaled.${format}`;
  const scaling = `scale=${nw}:${nh}`;
  let args: string[];
  if (format === 'webm' && alpha) {
    // ffmpeg's own VP9 decoder drops the alpha plane: libvpx reads it; the alpha is written as for a render (ffmpeg.ts).
    const webm = alphaWebmOutputs('[s]', out, ['-map', '0:a?', '-c:a', 'copy']);
    args = ['-y', '-v', 'error', '-c:v', 'libvpx-vp9', '-i', file, '-filter_complex', `[0:v]${scaling},format=rgba[s];${webm.filter}`, ...webm.args];
  } else {
    const flags = format === 'webm' ? [] : ['-movflags', '+faststart'];
    args = ['-y', '-v', 'error', '-i', file, '-vf', scaling, ...resultCodecs(format, alpha).video, '-c:a', 'copy', ...flags, out];
  }
  const { code, stderr } = await runFfmpeg(args, { timeoutMs: 10 * 60_000 });
  if (code !== 0) throw new Error(`resizing the result failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  if (format === 'webm' && alpha) await joinAlphaParts(out);
  await rename(out, file);
  return { ...metadata, resolution: [String(nw), String(nh)] };
}
