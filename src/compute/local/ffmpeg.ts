/** The encoders of a render: ffmpeg (src/media/ffmpeg.ts) writing the result, its alpha, its HLS preview. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import type { ResultFormat } from '../interface.ts';
import { joinAlpha } from './webm-alpha.ts';
import { FFMPEG_PATH, track } from '../../media/ffmpeg.ts';

export interface EncoderOptions {
  width: number;
  height: number;
  fps: number;
  format: ResultFormat;
  /** Frames arrive as rgba (straight alpha) and the result keeps the alpha: webm (VP9 yuva420p) or mov (ProRes 4444). */
  alpha?: boolean;
  outputPath: string;
  /** A file whose first audio stream becomes the result's sound (AAC; Opus in webm). */
  audioPath?: string;
  /** Length of the video in seconds, to cut the audio to. */
  durationSec: number;
  /**
   * Also write the video as it is encoded to an HLS event playlist here (`index.m3u8`,
   * one-second `seg%03d.ts` segments, H.264), so it can be watched while it renders. A result
   * with alpha shows on black there.
   */
  previewDir?: string;
}

const H264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p'];
const AAC = ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'];

/**
 * The codecs of a result format: H.264 and AAC in mp4 and mov, ProRes 4444 in a mov with alpha,
 * VP9 and Opus in webm (realtime speed settings: about 4x faster than `good` on 2 cores).
 */
export function resultCodecs(format: ResultFormat, alpha: boolean): { video: string[]; audio: string[] } {
  if (format === 'webm') {
    return {
      video: ['-c:v', 'libvpx-vp9', '-pix_fmt', alpha ? 'yuva420p' : 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-b:v', '0', '-crf', '30'],
      audio: ['-c:a', 'libopus', '-b:a', '96k', '-ar', '48000'],
    };
  }
  if (alpha) return { video: ['-c:v', 'prores_ks', '-profile:v', '4444', '-pix_fmt', 'yuva444p10le', '-qscale:v', '8'], audio: AAC };
  return { video: H264, audio: AAC };
}

/** Container options of a result file: mp4 and mov start with their index, so they play while they download. */
const muxerFlags = (format: ResultFormat): string[] => (format === 'webm' ? [] : ['-movflags', '+faststart']);

/** The two encodes a transparent webm is joined from (see webm-alpha.ts), beside the result. */
const alphaParts = (outputPath: string) => ({ colour: `${outputPath}.colour.webm`, alpha: `${outputPath}.alpha.webm` });
const joinsAlpha = (o: EncoderOptions): boolean => o.format === 'webm' && (o.alpha ?? false);

/**
 * A transparent webm as two VP9 encodes at the same speed (joined afterwards by
 * `joinAlphaParts`): the filter graph text that splits rgba `input` into colour and alpha (the
 * alpha plane becomes the luma unchanged: full range in, full range out), and the output
 * arguments, the sound (`audio`) going with the colour.
 */
export function alphaWebmOutputs(input: string, outputPath: string, audio: string[]): { filter: string; args: string[] } {
  const parts = alphaParts(outputPath);
  const vp9 = resultCodecs('webm', false).video;
  return {
    filter: `${input}split[wc][wa];[wc]format=yuv420p[wcv];[wa]alphaextract,scale=in_range=full:out_range=full,format=yuv420p[wav]`,
    args: [
      '-map', '[wcv]', ...vp9, '-threads', '2', ...audio, '-f', 'webm', parts.colour,
      '-map', '[wav]', ...vp9, '-threads', '1', '-an', '-f', 'webm', parts.alpha,
    ],
  };
}

/** Joins the two encodes of `alphaWebmOutputs` into `outputPath` and removes them. */
export async function joinAlphaParts(outputPath: string): Promise<void> {
  const parts = alphaParts(outputPath);
  try {
    await joinAlpha(parts.colour, parts.alpha, outputPath);
  } finally {
    await Promise.all([rm(parts.colour, { force: true }), rm(parts.alpha, { force: true })]);
  }
}

/** Starts an encoder that reads raw rgb24 (or rgba) frames on stdin. Once it exits with 0, call `finishEncoding`. */
export function startEncoder(o: EncoderOptions): ChildProcessByStdio<Writable, null, Readable> {
  const alpha = o.alpha ?? false;
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    '-f', 'rawvideo', '-pix_fmt', alpha ? 'rgba' : 'rgb24', '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps), '-i', 'pipe:0',
  ];
  if (o.audioPath) args.push('-t', o.durationSec.toFixed(3), '-i', o.audioPath);
  const codecs = resultCodecs(o.format, alpha);
  const audio = (c: string[]) => (o.audioPath ? ['-map', '1:a:0', ...c] : ['-an']);
  const escape = (path: string) => path.replace(/[\\|[\]:]/g, (c) => `\\${c}`);
  const keyframes = ['-g', String(Math.max(1, Math.round(o.fps)))];
  const preview = (input: string) => (o.previewDir
    ? ['-map', input, ...H264, '-threads', '1', ...audio(AAC), ...keyframes, '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0',
      '-hls_playlist_type', 'event', '-hls_segment_filename', join(o.previewDir, 'seg%03d.ts'), join(o.previewDir, 'index.m3u8')]
    : []);
  if (joinsAlpha(o)) {
    const webm = alphaWebmOutputs(o.previewDir ? '[w]' : '[0:v]', o.outputPath, audio(resultCodecs('webm', false).audio));
    args.push('-filter_complex', `${o.previewDir ? '[0:v]split[w][p0];[p0]premultiply=inplace=1[p];' : ''}${webm.filter}`, ...webm.args, ...preview('[p]'));
  } else if (!o.previewDir) {
    args.push('-map', '0:v:0', ...codecs.video, '-threads', '2', ...audio(codecs.audio), ...muxerFlags(o.format), '-f', o.format, o.outputPath);
  } else if (codecs.video === H264) {
    // One encode, two muxers: the result file and the growing playlist (a keyframe every second to cut segments at).
    // The tee muxer selects no stream by itself.
    const hls = `hls_time=1:hls_list_size=0:hls_playlist_type=event:hls_segment_filename=${escape(join(o.previewDir, 'seg%03d.ts'))}`;
    args.push('-map', '0:v:0', ...codecs.video, '-threads', '2', ...audio(codecs.audio), ...keyframes, '-flags', '+global_header', '-f', 'tee',
      `[f=${o.format}:movflags=+faststart]${escape(o.outputPath)}|[f=hls:${hls}]${escape(join(o.previewDir, 'index.m3u8'))}`);
  } else {
    // HLS carries H.264 only: the preview is a second, H.264 encode of the same frames (alpha shown on black).
    args.push('-filter_complex', alpha ? '[0:v]split[r][p0];[p0]premultiply=inplace=1[p]' : '[0:v]split[r][p]');
    args.push('-map', '[r]', ...codecs.video, '-threads', '2', ...audio(codecs.audio), ...muxerFlags(o.format), '-f', o.format, o.outputPath);
    args.push(...preview('[p]'));
  }
  return track(spawn(FFMPEG_PATH, args, { stdio: ['pipe', 'ignore', 'pipe'] }));
}

/** What remains once the encoder exited with 0: a transparent webm is joined from its two encodes. */
export async function finishEncoding(o: EncoderOptions): Promise<void> {
  if (joinsAlpha(o)) await joinAlphaParts(o.outputPath);
}
