/**
 * The voice's pitch: the median fundamental frequency over the voiced frames of a recording.
 * A pure function on samples, so it is tested on synthetic tones and on Flite speech.
 *
 * Frames of 40 ms, one after the other. A frame is voiced when it is loud enough (above an
 * absolute floor and a share of the recording's loud frames) and periodic: its normalised
 * autocorrelation peaks at a lag between 1/400 s and 1/60 s at 0.5 or more. The period is the
 * shortest lag whose correlation comes within 90 % of the best one (so a voice is not read
 * an octave low), refined by a parabola through its neighbours.
 */

export const PITCH_MIN_HZ = 60;
export const PITCH_MAX_HZ = 400;
const FRAME_SEC = 0.04;
/** -45 dBFS: quieter frames are silence or breath. */
const ABSOLUTE_FLOOR = 10 ** (-45 / 20);
/** A voiced frame is at least this share of the loud frames' level (the 90th percentile of frame levels). */
const RELATIVE_FLOOR = 0.15;
const MIN_PERIODICITY = 0.5;
const NEAR_BEST = 0.9;
/** Fewer voiced frames than this (0.4 s of voice) measure nothing. */
const MIN_VOICED_FRAMES = 10;

/** Samples as floats in [-1, 1] (s16le input is divided by 32768). */
export type Samples = Float32Array | Int16Array;

const toFloat = (s: Samples): Float32Array => {
  if (s instanceof Float32Array) return s;
  const out = new Float32Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s[i]! / 32768;
  return out;
};

/** The fundamental frequency of one frame (DC removed), Hz, or null when it is not periodic in the range. */
export function framePitch(frame: Float32Array, sampleRate: number): number | null {
  const n = frame.length;
  const minLag = Math.max(2, Math.floor(sampleRate / PITCH_MAX_HZ));
  const maxLag = Math.min(n - 2, Math.ceil(sampleRate / PITCH_MIN_HZ));
  if (maxLag <= minLag + 1) return null;
  const corr = new Float64Array(maxLag + 2);
  for (let lag = minLag - 1; lag <= maxLag + 1; lag++) {
    let xy = 0, xx = 0, yy = 0;
    for (let i = 0; i + lag < n; i++) {
      const a = frame[i]!, b = frame[i + lag]!;
      xy += a * b;
      xx += a * a;
      yy += b * b;
    }
    corr[lag] = xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : 0;
  }
  let best = 0;
  for (let lag = minLag; lag <= maxLag; lag++) if (corr[lag]! > best) best = corr[lag]!;
  if (best < MIN_PERIODICITY) return null;
  // The shortest lag that is a local peak within NEAR_BEST of the best.
  let lag = -1;
  for (let l = minLag; l <= maxLag; l++) {
    if (corr[l]! >= NEAR_BEST * best && corr[l]! >= corr[l - 1]! && corr[l]! >= corr[l + 1]!) {
      lag = l;
      break;
    }
  }
  if (lag < 0) return null;
  const a = corr[lag - 1]!, b = corr[lag]!, c = corr[lag + 1]!;
  const denom = a - 2 * b + c;
  const shift = denom < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denom)) : 0;
  const hz = sampleRate / (lag + shift);
  return hz >= PITCH_MIN_HZ && hz <= PITCH_MAX_HZ ? hz : null;
}

const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The median F0 over the voiced 40 ms frames, Hz (one decimal), or null when too little is voiced. */
export function medianPitch(samples: Samples, sampleRate: number): number | null {
  const x = toFloat(samples);
  const len = Math.round(FRAME_SEC * sampleRate);
  const frames: { start: number; rms: number }[] = [];
  for (let start = 0; start + len <= x.length; start += len) {
    let sum = 0, sq = 0;
    for (let i = start; i < start + len; i++) sum += x[i]!;
    const mean = sum / len;
    for (let i = start; i < start + len; i++) sq += (x[i]! - mean) ** 2;
    frames.push({ start, rms: Math.sqrt(sq / len) });
  }
  if (frames.length === 0) return null;
  const levels = frames.map((f) => f.rms).sort((a, b) => a - b);
  const loud = levels[Math.min(levels.length - 1, Math.floor(0.9 * levels.length))]!;
  const floor = Math.max(ABSOLUTE_FLOOR, RELATIVE_FLOOR * loud);
  const pitches: number[] = [];
  const frame = new Float32Array(len);
  for (const f of frames) {
    if (f.rms < floor) continue;
    let sum = 0;
    for (let i = 0; i < len; i++) sum += x[f.start + i]!;
    const mean = sum / len;
    for (let i = 0; i < len; i++) frame[i] = x[f.start + i]! - mean;
    const hz = framePitch(frame, sampleRate);
    if (hz !== null) pitches.push(hz);
  }
  if (pitches.length < MIN_VOICED_FRAMES) return null;
  return Math.round(median(pitches) * 10) / 10;
}
