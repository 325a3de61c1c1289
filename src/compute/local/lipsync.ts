/**
 * Lip sync, measured on a rendered file rather than eyeballed: the mouth opening is tracked
 * on the video itself (the same face tracker that reads driver videos), the speech envelope
 * is read from the file's own audio track, and the two are cross-correlated. The lag with
 * the best correlation is the audio-visual offset (positive: the lips trail the sound).
 * docs/lipsync.md explains the measure and its limits.
 */
import type { SpeechCue } from '../interface.ts';
import { videoDriverMotion } from './driver-video.ts';
import { mouthFromAudio } from './song.ts';
import { decodeSpeech } from './speech-driver.ts';
import { visemeOf } from './visemes.ts';

export interface LipSyncMeasure {
  /** The lag (ms) at which mouth opening and speech envelope correlate best; positive: lips late. */
  offsetMs: number;
  /** Pearson correlation at that lag (-1..1). */
  correlation: number;
  /** Frames compared. */
  frames: number;
  fps: number;
  /** The measured mouth opening per frame (0 closed .. 1 wide), for plots and further checks. */
  mouth: number[];
}

function pearson(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  if (n < 3) return 0;
  let ma = 0, mb = 0;
  for (let i = 0; i < n; i++) { ma += a[i]!; mb += b[i]!; }
  ma /= n; mb /= n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma, y = b[i]! - mb;
    sab += x * y; saa += x * x; sbb += y * y;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}

/** Correlation of `mouth` shifted by `lag` frames against `envelope` (mouth[i + lag] vs envelope[i]). */
function correlationAt(mouth: readonly number[], envelope: readonly number[], lag: number): number {
  const a: number[] = [], b: number[] = [];
  for (let i = 0; i < envelope.length; i++) {
    const j = i + lag;
    if (j >= 0 && j < mouth.length) { a.push(mouth[j]!); b.push(envelope[i]!); }
  }
  return pearson(a, b);
}

/** Cross-correlates the two curves over ±`maxLagFrames`; the peak is refined to a fraction of a frame. */
export function avOffset(mouth: readonly number[], envelope: readonly number[], fps: number, maxLagFrames = 8): { offsetMs: number; correlation: number } {
  let best = 0, bestR = -Infinity;
  const rs = new Map<number, number>();
  for (let lag = -maxLagFrames; lag <= maxLagFrames; lag++) {
    const r = correlationAt(mouth, envelope, lag);
    rs.set(lag, r);
    if (r > bestR) { bestR = r; best = lag; }
  }
  // Parabolic interpolation through the peak and its neighbours.
  const l = rs.get(best - 1), r = rs.get(best + 1);
  let frac = 0;
  if (l !== undefined && r !== undefined) {
    const denom = l - 2 * bestR + r;
    if (denom < 0) frac = Math.max(-0.5, Math.min(0.5, (0.5 * (l - r)) / denom));
  }
  return { offsetMs: ((best + frac) * 1000) / fps, correlation: bestR };
}

/** Measures a rendered talking video (with its sound). */
export async function measureLipSync(videoPath: string): Promise<LipSyncMeasure> {
  const { track } = await videoDriverMotion(videoPath, '');
  const mouth = track.frames.map((f) => f.mouth);
  const envelope = mouthFromAudio(await decodeSpeech(videoPath), track.fps);
  const n = Math.min(mouth.length, envelope.length);
  const { offsetMs, correlation } = avOffset(mouth.slice(0, n), envelope.slice(0, n), track.fps);
  return { offsetMs, correlation, frames: n, fps: track.fps, mouth: mouth.slice(0, n) };
}

/**
 * The measured mouth opening in the middle of each bilabial (p, b, m) against the opening
 * in the middle of each open vowel: lips that close on p, b and m show a clearly smaller
 * opening there. Answers the two medians.
 */
export function bilabialClosure(mouth: readonly number[], fps: number, cues: readonly SpeechCue[]): { bilabial: number; vowel: number; count: number } {
  const at = (c: SpeechCue) => mouth[Math.min(mouth.length - 1, Math.floor(((c.startMs + c.endMs) / 2000) * fps))] ?? 0;
  const median = (v: number[]) => (v.length ? [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]! : NaN);
  const bil = cues.filter((c) => visemeOf(c).closed && c.endMs - c.startMs >= 40).map(at);
  const vow = cues.filter((c) => visemeOf(c).open >= 0.55).map(at);
  return { bilabial: median(bil), vowel: median(vow), count: bil.length };
}
