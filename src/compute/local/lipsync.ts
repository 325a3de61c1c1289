/**
 * Lip sync, measured on a rendered file rather than eyeballed: the mouth opening is tracked
 * on the video itself (the same face tracker that reads driver videos), the speech envelope
 * is read from the file's own audio track, and the two are cross-correlated. The lag with
 * the best correlation is the audio-visual offset (positive: the lips trail the sound).
 * docs/lipsync.md explains the measure and its limits.
 */
import { RenderError } from '../../errors.ts';
import type { SpeechCue } from '../interface.ts';
import { videoDriverMotion } from './driver-video.ts';
import { runFfmpeg } from '../../media/ffmpeg.ts';
import type { Pcm } from './song.ts';
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

/**
 * When a file shows its first video frame and plays its first audio sample (seconds, on the
 * file's presentation timeline), and how many video frames it holds. An H.264 + AAC file
 * does not start both at zero: the encoder's B-frame delay and the AAC priming samples put,
 * for example, the first frame at 80 ms and the first audio packet (1024 priming samples,
 * then the speech) at 16 ms. Players line the two up by these times.
 */
export interface FileTimeline {
  videoStart: number;
  audioStart?: number;
  videoFrames: number;
}

/** Reads a `framecrc` listing of the file's first video stream (0) and first audio stream (1). */
export function parseFramecrc(text: string): FileTimeline {
  const tb = new Map<number, number>();
  for (const m of text.matchAll(/^#tb (\d+): (\d+)\/(\d+)$/gm)) tb.set(Number(m[1]), Number(m[2]) / Number(m[3]));
  const first = new Map<number, number>();
  let videoFrames = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+),\s*(-?\d+),\s*(-?\d+),/.exec(line);
    if (!m) continue;
    const stream = Number(m[1]), pts = Number(m[3]) * (tb.get(Number(m[1])) ?? NaN);
    if (stream === 0) videoFrames++;
    if (Number.isFinite(pts) && pts < (first.get(stream) ?? Infinity)) first.set(stream, pts);
  }
  const videoStart = first.get(0);
  if (videoStart === undefined || videoFrames === 0) throw new RenderError('DriverError', 'the video has no frames');
  return { videoStart, audioStart: first.get(1), videoFrames };
}

export async function fileTimeline(path: string): Promise<FileTimeline> {
  const { code, stdout, stderr } = await runFfmpeg(['-v', 'error', '-copyts', '-i', path, '-map', '0:v:0', '-map', '0:a:0?', '-c', 'copy', '-f', 'framecrc', '-'], { timeoutMs: 60_000 });
  if (code !== 0) throw new RenderError('DriverError', `the video cannot be read${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
  return parseFramecrc(stdout.toString());
}

/** `pcm` moved so that its sample 0 is what plays with the first video frame (the file's audio decodes from its own first packet). */
export function alignAudio(pcm: Pcm, timeline: FileTimeline): Pcm {
  const shift = Math.round((timeline.videoStart - (timeline.audioStart ?? timeline.videoStart)) * pcm.sampleRate);
  if (shift === 0) return pcm;
  if (shift > 0) return { sampleRate: pcm.sampleRate, samples: pcm.samples.subarray(Math.min(shift, pcm.samples.length)) };
  const samples = new Float32Array(pcm.samples.length - shift);
  samples.set(pcm.samples, -shift);
  return { sampleRate: pcm.sampleRate, samples };
}

/**
 * The speech envelope per video frame: RMS loudness in dB against the loudest frame, over a
 * 30 dB floor (0..1). Unsmoothed: the attack/release smoothing that drives a mouth from
 * loudness (`mouthFromAudio`) lags the sound by about half a frame and would read as lips
 * that lead it.
 */
export function speechEnvelope(pcm: Pcm, fps: number): number[] {
  const hop = pcm.sampleRate / fps;
  const rms: number[] = [];
  for (let f = 0; f < Math.floor(pcm.samples.length / hop); f++) {
    const a = Math.round(f * hop), b = Math.round((f + 1) * hop);
    let sum = 0;
    for (let i = a; i < b; i++) sum += pcm.samples[i]! ** 2;
    rms.push(Math.sqrt(sum / Math.max(1, b - a)));
  }
  const peak = Math.max(1e-9, ...rms);
  return rms.map((r) => Math.min(1, Math.max(0, (20 * Math.log10(Math.max(r, 1e-9) / peak) + 30) / 30)));
}

/**
 * How many copies of the first frame a tracker that decodes at a constant rate puts before
 * it: ffmpeg times the file from its earliest stream and repeats the first frame until the
 * video starts. They are the frames past the file's count or, when the tracker stopped early
 * (it reads 60 s at most), the video's start in frames.
 */
export function leadingCopies(tracked: number, timeline: FileTimeline, fps: number): number {
  if (tracked > timeline.videoFrames) return tracked - timeline.videoFrames;
  return Math.max(0, Math.round((timeline.videoStart - Math.min(timeline.videoStart, timeline.audioStart ?? Infinity)) * fps));
}

/**
 * Measures a rendered talking video (with its sound). Both curves are put on the speech's
 * own timeline, where frame 0 is the first frame shown and time 0 the sound that plays with
 * it: the face tracker decodes at a constant rate from the file's time zero (repeating the
 * first frame until the video starts), and the audio decodes from its first packet (priming
 * included), so each is moved by the file's timestamps. Without this, mouth and envelope were
 * both about two frames late against the phoneme timings, which hid the lips' closure on
 * short p, b and m.
 */
export async function measureLipSync(videoPath: string): Promise<LipSyncMeasure> {
  const timeline = await fileTimeline(videoPath);
  const { track } = await videoDriverMotion(videoPath, '');
  const lead = leadingCopies(track.frames.length, timeline, track.fps);
  const mouth = track.frames.slice(lead).map((f) => f.mouth);
  const envelope = speechEnvelope(alignAudio(await decodeSpeech(videoPath), timeline), track.fps);
  const n = Math.min(mouth.length, envelope.length);
  const { offsetMs, correlation } = avOffset(mouth.slice(0, n), envelope.slice(0, n), track.fps);
  return { offsetMs, correlation, frames: n, fps: track.fps, mouth: mouth.slice(0, n) };
}

export interface BilabialClosure {
  /** Bilabials (p, b, m) measured. */
  count: number;
  /** Median opening of the bilabials, each at its deepest frame while the lips should be shut. */
  bilabial: number;
  /** Open vowels measured. */
  vowels: number;
  /** Median opening of the open vowels, each at its widest frame. */
  vowel: number;
  /** bilabial / vowel: near 0 when the lips shut, near 1 when they do not. */
  ratio: number;
  /** Share of the bilabials whose deepest frame is at most CLOSED_SHARE_OF_VOWEL of the vowels' median. */
  closedShare: number;
}

/** A bilabial "closes" when its opening is at most this share of the open vowels' median. */
export const CLOSED_SHARE_OF_VOWEL = 0.25;
/** Vowels at least this open (viseme table) count as open: aa, ae, ah, ay, aw, eh, ao, oy; a, æ, ʌ, ɛ, ɔ. */
const OPEN_VOWEL = 0.6;
/** The lips are held shut at least this long around a bilabial's middle (visemes.ts, MIN_CLOSURE). */
const HOLD_SEC = 0.08;

/**
 * Do the lips close on p, b and m? `mouth` is the measured opening per frame on the speech's
 * timeline (frame k shows the time (k + 0.5) / fps), `cues` the phoneme timings the clip was
 * made from. Each bilabial is measured at its deepest frame among the frames whose middle
 * falls inside the span the lips are held shut (the phoneme, at least 80 ms around its
 * middle); each open vowel at its widest frame inside its own span. Schwa and other near-shut
 * vowels are left out: an unstressed "a" is hardly more open than a closed mouth. Lips that
 * close show a bilabial median far under the vowel median (a small ratio) and a high share of
 * bilabials that shut; lips that move on the wrong sounds, or not at all, show neither.
 */
export function bilabialClosure(mouth: readonly number[], fps: number, cues: readonly SpeechCue[]): BilabialClosure {
  const median = (v: number[]) => (v.length ? [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]! : NaN);
  const frames = (from: number, to: number) => {
    const out: number[] = [];
    for (let k = Math.max(0, Math.ceil(from * fps - 0.5)); k < mouth.length && (k + 0.5) / fps <= to; k++) out.push(mouth[k]!);
    return out;
  };
  const bil: number[] = [];
  const vow: number[] = [];
  for (const c of cues) {
    const v = visemeOf(c);
    const start = c.startMs / 1000, end = c.endMs / 1000;
    if (v.closed) {
      const mid = (start + end) / 2, half = Math.max((end - start) / 2, HOLD_SEC / 2);
      const f = frames(mid - half, mid + half);
      if (f.length) bil.push(Math.min(...f));
    } else if (v.open >= OPEN_VOWEL) {
      const f = frames(start, end);
      if (f.length) vow.push(Math.max(...f));
    }
  }
  const bilabial = median(bil), vowel = median(vow);
  return {
    count: bil.length, bilabial, vowels: vow.length, vowel,
    ratio: vowel > 0 ? bilabial / vowel : NaN,
    closedShare: bil.length && vowel > 0 ? bil.filter((b) => b <= CLOSED_SHARE_OF_VOWEL * vowel).length / bil.length : 0,
  };
}

/** What lips in time are held to: the offset (issue 9, 4.2) and the closure on p, b and m. */
export const LIP_SYNC_GOALS = { maxOffsetMs: 40, maxClosureRatio: 0.25, minClosedShare: 0.8 } as const;

/** The goals a measured clip misses, in words; empty when it meets them all. */
export function lipSyncMisses(sync: Pick<LipSyncMeasure, 'offsetMs'>, closure: BilabialClosure): string[] {
  const misses: string[] = [];
  if (!(Math.abs(sync.offsetMs) <= LIP_SYNC_GOALS.maxOffsetMs)) misses.push(`audio-visual offset ${sync.offsetMs.toFixed(1)} ms is beyond ±${LIP_SYNC_GOALS.maxOffsetMs} ms`);
  if (closure.count === 0 || closure.vowels === 0) misses.push('no p, b, m or open vowel to measure the closure on');
  else {
    if (!(closure.ratio <= LIP_SYNC_GOALS.maxClosureRatio)) misses.push(`the lips on p, b, m are ${closure.ratio.toFixed(2)} as open as on open vowels (goal ≤ ${LIP_SYNC_GOALS.maxClosureRatio})`);
    if (!(closure.closedShare >= LIP_SYNC_GOALS.minClosedShare)) misses.push(`${Math.round(closure.closedShare * 100)} % of p, b, m close (goal ≥ ${LIP_SYNC_GOALS.minClosedShare * 100} %)`);
  }
  return misses;
}
