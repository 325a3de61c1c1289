/**
 * Lips from the sound alone, for speech that comes without phoneme timings (an uploaded
 * audio, an external voice). No recognizer and no language model: the mouth shape is read
 * from what the vocal tract does to the sound, which is the same in every language.
 *
 * Every 10 ms (a 25 ms window of the speech resampled to 8 kHz):
 * - loudness (dB, on the full band) and brightness (the RMS frequency of the window);
 * - voicing: the normalized autocorrelation peak at pitch lags (70-400 Hz);
 * - formants: a 10th-order LPC (autocorrelation + Levinson-Durbin on the pre-emphasized,
 *   windowed frame); F1 and F2 are the first two peaks of the LPC envelope, read slightly
 *   inside the unit circle so that close formants (an "oo": 300 and 800 Hz) stay apart.
 * Then, against the speaker's own ranges (percentiles over the file's voiced frames, so a
 * low male voice and a high child's voice are read alike):
 * - the jaw opens with F1 (an "ah" has a high F1, an "ee" or "oo" a low one), gated by loudness;
 * - the lips round with a low F2 on voiced frames (oo, oh, w);
 * - the lips shut where the sound stops briefly inside speech (a dip of 12 dB or more, at most
 *   150 ms, with voiced sound on both sides: the hold of a p or b) or hums through the nose (a
 *   voiced murmur, dark or much darker and quieter than the vowels beside it: an m), and in
 *   silence. The sound alone does not tell m from n, nor a p's hold from a t's: all shut.
 * The shapes are smoothed over about 60 ms (the coarticulation the cue path gets from its
 * smoothstep) and sampled at each video frame's middle; a closure is held for at least
 * two frames, as `mouthFromCues` holds a p, b or m.
 */
import type { Pcm } from './song.ts';
import type { MouthTrack } from './visemes.ts';

const RATE = 8000;
const HOP = 80; // 10 ms
const WIN = 200; // 25 ms
const ORDER = 10;
const HOP_SEC = HOP / RATE;
/** Envelope bins (0 .. 4 kHz) where formant peaks are looked for. */
const BINS = 100;
/** The LPC envelope is read at this radius: poles near the unit circle give sharper, separate peaks. */
const RADIUS = 0.985;
/** Seconds the lips stay shut for a closure at least (as visemes.ts MIN_CLOSURE). */
const MIN_CLOSURE = 0.08;
/** A stop's hold: a dip at most this long inside speech; longer is a pause. */
const MAX_HOLD = 0.15;

/** Per 10 ms of speech, what the estimator reads (exported for tests and plots). */
export interface SpeechFeatures {
  hopSec: number;
  /** Loudness, dB against the file's loud level (0 = loud speech). */
  db: Float32Array;
  /** RMS frequency of the signal (Hz): high for s, sh, t bursts, low for vowels and nasals. */
  brightness: Float32Array;
  /** 0..1: how periodic the frame is (pitch strength). */
  voicing: Float32Array;
  /** First and second formant (Hz), 0 where none was found. */
  f1: Float32Array;
  f2: Float32Array;
}

/** Resamples to 8 kHz through a windowed-sinc low-pass (cut at 3.6 kHz). */
function resample(pcm: Pcm): Float32Array {
  const { samples, sampleRate } = pcm;
  if (sampleRate === RATE) return samples;
  const ratio = sampleRate / RATE;
  const cut = Math.min(0.5, 3600 / sampleRate); // cycles per input sample
  const half = Math.ceil(3 * ratio);
  const taps = new Float32Array(2 * half + 1);
  let sum = 0;
  for (let k = -half; k <= half; k++) {
    const x = 2 * cut * k;
    const sinc = k === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = 0.54 + 0.46 * Math.cos((Math.PI * k) / (half + 1));
    taps[k + half] = sinc * w;
    sum += sinc * w;
  }
  for (let i = 0; i < taps.length; i++) taps[i]! /= sum;
  const out = new Float32Array(Math.floor(samples.length / ratio));
  for (let j = 0; j < out.length; j++) {
    const c = Math.round(j * ratio);
    let v = 0;
    for (let k = -half; k <= half; k++) {
      const s = samples[c + k];
      if (s !== undefined) v += s * taps[k + half]!;
    }
    out[j] = v;
  }
  return out;
}

/** Levinson-Durbin: predictor `a` (a[0] = 1) from autocorrelation `r`; false when the frame is degenerate. */
const tmp = new Float64Array(ORDER + 1);
function levinson(r: Float64Array, a: Float64Array): boolean {
  a.fill(0);
  a[0] = 1;
  let err = r[0]!;
  if (!(err > 0)) return false;
  for (let i = 1; i <= ORDER; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / err;
    tmp.set(a);
    for (let j = 1; j < i; j++) a[j] = tmp[j]! + k * tmp[i - j]!;
    a[i] = k;
    err *= 1 - k * k;
    if (!(err > 0)) return false;
  }
  return true;
}

const COS = new Float64Array(BINS * (ORDER + 1));
const SIN = new Float64Array(BINS * (ORDER + 1));
for (let b = 0; b < BINS; b++) {
  const w = (Math.PI * b) / BINS;
  for (let k = 0; k <= ORDER; k++) {
    COS[b * (ORDER + 1) + k] = Math.cos(w * k) * RADIUS ** -k;
    SIN[b * (ORDER + 1) + k] = Math.sin(w * k) * RADIUS ** -k;
  }
}
const HAMMING = Float64Array.from({ length: WIN }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (WIN - 1)));

/** F1 and F2 (Hz) as the first two peaks of the LPC envelope between 180 Hz and 3.5 kHz. */
const env = new Float64Array(BINS);
function formants(a: Float64Array, out: [number, number]): void {
  for (let b = 0; b < BINS; b++) {
    let re = 0, im = 0;
    const o = b * (ORDER + 1);
    for (let k = 0; k <= ORDER; k++) { re += a[k]! * COS[o + k]!; im -= a[k]! * SIN[o + k]!; }
    env[b] = -Math.log(re * re + im * im);
  }
  out[0] = 0; out[1] = 0;
  let n = 0;
  const hz = RATE / 2 / BINS;
  for (let b = 1; b < BINS - 1 && n < 2; b++) {
    if (!(env[b]! > env[b - 1]! && env[b]! >= env[b + 1]!)) continue;
    const denom = env[b - 1]! - 2 * env[b]! + env[b + 1]!;
    const f = (b + (denom < 0 ? (0.5 * (env[b - 1]! - env[b + 1]!)) / denom : 0)) * hz;
    if (f > 3500) break;
    if (f >= 180) out[n++] = f; // under 180 Hz: the voice's fundamental, not a formant
  }
  // An envelope that falls from 0 Hz with its first peak high up hides a very low F1 (a voice
  // bar, a nasal murmur): call it 180 Hz, and the peak found F2.
  if (n > 0 && out[0] > 1000 && env[1]! < env[0]!) { out[1] = 0; out[0] = 180; }
}

/** The per-10-ms features of `pcm` (any sample rate). */
export function speechFeatures(pcm: Pcm): SpeechFeatures {
  const x = resample(pcm);
  const hops = Math.max(0, Math.floor((x.length - WIN) / HOP) + 1);
  const db = new Float32Array(hops), brightness = new Float32Array(hops), voicing = new Float32Array(hops);
  const f1 = new Float32Array(hops), f2 = new Float32Array(hops);
  const frame = new Float64Array(WIN);
  const r = new Float64Array(ORDER + 1);
  const a = new Float64Array(ORDER + 1);
  const fm: [number, number] = [0, 0];
  const pitchR = new Float64Array(64);
  // Pitch at 2 kHz (low-passed at about 700 Hz: the low harmonics carry the period, and the
  // high ones would not repeat at a whole number of samples): lags 5..28 are 400..70 Hz.
  const PW = 60, LAG_MIN = 5, LAG_MAX = 28;
  const x4 = new Float32Array(Math.floor(x.length / 4));
  const pole = Math.exp((-2 * Math.PI * 700) / RATE);
  for (let i = 0, y1 = 0, y2 = 0; i < 4 * x4.length; i++) {
    y1 = (1 - pole) * x[i]! + pole * y1;
    y2 = (1 - pole) * y1 + pole * y2;
    if (i % 4 === 3) x4[(i - 3) / 4] = y2;
  }
  // Loudness first, on the full band (an s or a sh has most of its energy over 4 kHz: read at
  // 8 kHz it would pass for a silent stop); the quiet hops (50 dB under the loud level) need
  // nothing else.
  const full = pcm.samples, ratio = pcm.sampleRate / RATE, fullWin = Math.round(WIN * ratio);
  for (let h = 0; h < hops; h++) {
    let e = 0, mean = 0;
    const s0 = Math.round(h * HOP * ratio), s1 = Math.min(full.length, s0 + fullWin);
    for (let i = s0; i < s1; i++) mean += full[i]!;
    mean /= Math.max(1, s1 - s0);
    for (let i = s0; i < s1; i++) e += (full[i]! - mean) ** 2;
    db[h] = 10 * Math.log10(e / Math.max(1, s1 - s0) + 1e-12);
  }
  // Against the file's loud level: the 95th percentile, so one click does not set it; a
  // file that is all near-silence (under -65 dB full scale) stays silent.
  const sorted = Float32Array.from(db).sort();
  const loud = Math.max(-65, sorted.length ? sorted[Math.floor(sorted.length * 0.95)]! : 0);
  for (let h = 0; h < hops; h++) {
    db[h] = db[h]! - loud;
    if (db[h]! < -50) continue;
    const s0 = h * HOP;
    let e = 0, d = 0, mean = 0;
    for (let i = 0; i < WIN; i++) mean += x[s0 + i]!;
    mean /= WIN;
    for (let i = 0; i < WIN; i++) {
      const v = x[s0 + i]! - mean;
      e += v * v;
      const prev = i > 0 ? x[s0 + i - 1]! - mean : 0;
      if (i > 0) d += (v - prev) ** 2;
      // Pre-emphasis (+6 dB/octave above ~60 Hz) and a Hamming window, for the LPC.
      frame[i] = (v - 0.95 * prev) * HAMMING[i]!;
    }
    brightness[h] = e > 0 ? (RATE / (2 * Math.PI)) * 2 * Math.asin(Math.min(1, 0.5 * Math.sqrt(d / e))) : 0;
    for (let k = 0; k <= ORDER; k++) {
      let acc = 0;
      for (let i = k; i < WIN; i++) acc += frame[i]! * frame[i - k]!;
      r[k] = acc;
    }
    r[0] = r[0]! * (1 + 1e-6) + 1e-12; // a little white noise: keeps the recursion stable on pure tones
    if (levinson(r, a)) formants(a, fm); else { fm[0] = 0; fm[1] = 0; }
    f1[h] = fm[0];
    f2[h] = fm[1];
    // Voicing: the best normalized autocorrelation at a pitch lag, on the 2 kHz signal, over
    // the window's middle.
    const p0 = Math.round((s0 + WIN / 2) / 4) - Math.round((PW + LAG_MAX) / 2);
    if (p0 < 0 || p0 + PW + LAG_MAX > x4.length) continue;
    let e0 = 0, el = 0;
    for (let i = 0; i < PW; i++) e0 += x4[p0 + i]! ** 2;
    for (let i = LAG_MIN; i < LAG_MIN + PW; i++) el += x4[p0 + i]! ** 2;
    let best = 0, atBest = -1;
    const rs = pitchR;
    for (let lag = LAG_MIN; lag <= LAG_MAX; lag++) {
      let c = 0;
      for (let i = 0; i < PW; i++) c += x4[p0 + i]! * x4[p0 + i + lag]!;
      const v = e0 > 0 && el > 0 ? c / Math.sqrt(e0 * el) : 0;
      rs[lag] = v;
      if (v > best) { best = v; atBest = lag; }
      el += x4[p0 + lag + PW]! ** 2 - x4[p0 + lag]! ** 2;
    }
    // The period falls between whole lags: the peak of a parabola through the best lag and its neighbours.
    if (atBest > LAG_MIN && atBest < LAG_MAX) {
      const l = rs[atBest - 1]!, r = rs[atBest + 1]!, denom = l - 2 * best + r;
      if (denom < 0) best -= ((l - r) ** 2) / (8 * denom);
    }
    voicing[h] = Math.min(1, best);
  }
  // A formant read from one 25 ms window jumps now and then (two close formants seen as one,
  // a harmonic taken for a formant): the median of five hops holds the track.
  return { hopSec: HOP_SEC, db, brightness, voicing, f1: median5(f1), f2: median5(f2) };
}

function median5(v: Float32Array): Float32Array {
  const out = new Float32Array(v.length);
  const w: number[] = [];
  for (let i = 0; i < v.length; i++) {
    w.length = 0;
    for (let k = Math.max(0, i - 2); k <= Math.min(v.length - 1, i + 2); k++) if (v[k]! > 0) w.push(v[k]!);
    if (v[i]! === 0 || w.length === 0) continue;
    w.sort((a, b) => a - b);
    out[i] = w[w.length >> 1]!;
  }
  return out;
}

const clamp01 = (v: number): number => (v <= 0 ? 0 : v >= 1 ? 1 : v);
const smoothstep = (x: number): number => { const u = clamp01(x); return u * u * (3 - 2 * u); };

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/** Gaussian smoothing of a per-hop curve, sigma in hops. */
function smooth(v: Float32Array, sigma: number): Float32Array {
  const half = Math.ceil(3 * sigma);
  const w = Array.from({ length: 2 * half + 1 }, (_, i) => Math.exp(-0.5 * ((i - half) / sigma) ** 2));
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    let s = 0, n = 0;
    for (let k = -half; k <= half; k++) {
      const j = i + k;
      if (j < 0 || j >= v.length) continue;
      s += v[j]! * w[k + half]!;
      n += w[k + half]!;
    }
    out[i] = n > 0 ? s / n : 0;
  }
  return out;
}

/** Voiced speech: periodic and not far under the loud level. */
const VOICED = 0.55;
const SPEECH_DB = -35;
/** A nasal murmur's RMS frequency is under this: nearly all its energy is in the lowest harmonics. */
const DARK_HZ = 205;

/**
 * Where the lips shut, per hop: quiet gaps of at most 150 ms between sounding speech (the hold
 * of a p or b: a t, d, k or g holds alike), and dark voiced murmurs (m; n and ng alike).
 */
export function closures(ft: SpeechFeatures): Uint8Array {
  const n = ft.db.length;
  const shut = new Uint8Array(n);
  const reach = Math.round(0.12 / ft.hopSec);
  const maxRun = Math.round(MAX_HOLD / ft.hopSec);
  const sounding = (h: number) => ft.db[h]! > -20 && ft.voicing[h]! > VOICED;
  // Loudest level within `reach` hops before and after each hop.
  const before = new Float32Array(n), after = new Float32Array(n);
  for (let h = 0; h < n; h++) {
    let b = -Infinity, a = -Infinity;
    for (let k = 1; k <= reach; k++) {
      if (h - k >= 0) b = Math.max(b, ft.db[h - k]!);
      if (h + k < n) a = Math.max(a, ft.db[h + k]!);
    }
    before[h] = b; after[h] = a;
  }
  // The brightest voiced sound within reach on either side, to tell a murmur by its contrast.
  const brightNear = new Float32Array(n);
  for (let h = 0; h < n; h++) {
    let b = 0;
    for (let k = Math.max(0, h - reach); k <= Math.min(n - 1, h + reach); k++) if (sounding(k) && ft.brightness[k]! > b) b = ft.brightness[k]!;
    brightNear[h] = b;
  }
  // A murmur: voiced and dark (nearly all its energy in the lowest harmonics), or voiced, quieter
  // than the vowels beside it and much darker than they are (a higher voice hums brighter).
  const dark = (h: number) => ft.voicing[h]! > VOICED && ft.db[h]! > -30 &&
    (ft.brightness[h]! < DARK_HZ || (Math.min(before[h]!, after[h]!) - ft.db[h]! >= 5 && ft.brightness[h]! < 0.45 * brightNear[h]!));
  const dipped = (h: number) => Math.min(before[h]!, after[h]!) - ft.db[h]! >= 12;
  /** Marks the runs of `inRun` hops `shortest` to `longest` hops long with speech on `sides` (1 or 2) of them. */
  const mark = (inRun: (h: number) => boolean, shortest: number, longest: number, sides: number) => {
    for (let h = 0; h < n;) {
      if (!inRun(h)) { h++; continue; }
      let end = h;
      while (end + 1 < n && inRun(end + 1)) end++;
      if (end - h + 1 >= shortest && end - h + 1 <= longest) {
        let left = 0, right = 0;
        for (let k = 1; k <= reach; k++) {
          if (h - k >= 0 && sounding(h - k)) left = 1;
          if (end + k < n && sounding(end + k)) right = 1;
        }
        if (left + right >= sides) for (let k = h; k <= end; k++) shut[k] = 1;
      }
      h = end + 1;
    }
  };
  // The hold of a stop: a quiet gap inside speech, sound on both sides.
  mark(dipped, 1, maxRun, 2);
  // A nasal murmur (30 ms at least: a vowel's first period after a release is dark too), at
  // the start or the end of a word as well ("so much", "mama").
  mark(dark, 3, 2 * maxRun, 1);
  return shut;
}

/**
 * One mouth shape per video frame for `frames` frames at `fps`, from the speech alone: the
 * same track `mouthFromCues` makes from phoneme timings, for the same rig.
 */
export function mouthFromSpeech(pcm: Pcm, frames: number, fps: number): MouthTrack {
  const ft = speechFeatures(pcm);
  const n = ft.db.length;
  const voicedF1: number[] = [], voicedF2: number[] = [];
  for (let h = 0; h < n; h++) {
    if (ft.voicing[h]! > VOICED && ft.db[h]! > -20 && ft.f1[h]! > 0) {
      voicedF1.push(ft.f1[h]!);
      if (ft.f2[h]! > 0) voicedF2.push(ft.f2[h]!);
    }
  }
  // The speaker's own ranges.
  const f1Lo = percentile(voicedF1, 0.1), f1Hi = percentile(voicedF1, 0.9);
  const f2Lo = percentile(voicedF2, 0.05), f2Mid = percentile(voicedF2, 0.5);
  const open = new Float32Array(n), round = new Float32Array(n);
  for (let h = 0; h < n; h++) {
    const loud = smoothstep((ft.db[h]! - SPEECH_DB) / 25);
    if (ft.voicing[h]! > VOICED && ft.f1[h]! > 0 && f1Hi > f1Lo) {
      const f1n = clamp01((ft.f1[h]! - f1Lo) / (f1Hi - f1Lo));
      open[h] = loud * (0.25 + 0.7 * f1n);
      // Full rounding from a little above the speaker's lowest F2s: lips round more than the F2
      // they lower shows (the lips' part of an "oo" is shared with the tongue's).
      if (ft.f2[h]! > 0 && f2Mid > f2Lo) round[h] = loud * clamp01(1.6 * clamp01((f2Mid - ft.f2[h]!) / (f2Mid - f2Lo)) * (1 - 0.5 * f1n));
    } else {
      open[h] = 0.25 * loud; // a consonant or a whisper: the jaw a little open
    }
  }
  const shut = closures(ft);
  const openS = smooth(open, 2.5), roundS = smooth(round, 3);
  const mouth: number[] = [], rnd: number[] = [];
  // Closure spans (seconds), held at least MIN_CLOSURE around their middle.
  const spans: [number, number][] = [];
  for (let h = 0; h < n;) {
    if (!shut[h]) { h++; continue; }
    let e = h;
    while (e + 1 < n && shut[e + 1]) e++;
    // Hop h reads the sound around h * hop + window / 2.
    const centre = WIN / RATE / 2;
    const from = h * ft.hopSec + centre - ft.hopSec / 2, to = e * ft.hopSec + centre + ft.hopSec / 2;
    const mid = (from + to) / 2, half = Math.max((to - from) / 2, MIN_CLOSURE / 2);
    spans.push([mid - half, mid + half]);
    h = e + 1;
  }
  let s = 0;
  for (let f = 0; f < frames; f++) {
    const t = (f + 0.5) / fps;
    // Hop h covers t in [h * hop, h * hop + window): its middle is h * hop + window / 2.
    const pos = (t - WIN / RATE / 2) / ft.hopSec;
    const i = Math.max(0, Math.min(n - 1, Math.floor(pos)));
    const j = Math.min(n - 1, i + 1), u = clamp01(pos - i);
    let m = n ? openS[i]! * (1 - u) + openS[j]! * u : 0;
    const r = n ? roundS[i]! * (1 - u) + roundS[j]! * u : 0;
    while (s < spans.length && spans[s]![1] < t) s++;
    if (s < spans.length && spans[s]![0] <= t) m = 0;
    mouth.push(m);
    rnd.push(r);
  }
  return { mouth, round: rnd };
}
