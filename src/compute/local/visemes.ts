/**
 * Lips that follow speech: each phoneme of a voice's timings becomes a mouth shape (a
 * viseme: how far the jaw drops, how round the lips are, whether they press shut), and the
 * shapes are blended from one phoneme to the next as real mouths do (coarticulation).
 * Phonemes come as IPA (eSpeak) or ARPAbet (Flite); with no timings (an external voice, an
 * uploaded audio) the mouth is read from the sound itself (audio-visemes.ts).
 */
import type { SpeechCue } from '../interface.ts';

export interface Viseme {
  /** 0 closed .. 1 wide open (the jaw and lower lip). */
  open: number;
  /** 0 spread .. 1 fully rounded lips (the corners come in). */
  round: number;
  /** p, b, m: the lips press shut, whatever the neighbours do. */
  closed?: boolean;
}

const V = (open: number, round = 0, closed = false): Viseme => (closed ? { open, round, closed } : { open, round });
const SILENCE = V(0);

/** ARPAbet (Flite, lower case, stress digits dropped). */
const ARPABET: Record<string, Viseme> = {
  pau: SILENCE, sil: SILENCE, h: V(0.3), hh: V(0.3),
  p: V(0, 0, true), b: V(0, 0, true), m: V(0, 0, true),
  f: V(0.08), v: V(0.08),
  t: V(0.22), d: V(0.22), n: V(0.2), l: V(0.25), s: V(0.15), z: V(0.15), th: V(0.18), dh: V(0.18), r: V(0.25, 0.35), er: V(0.35, 0.3),
  sh: V(0.2, 0.5), zh: V(0.2, 0.5), ch: V(0.2, 0.5), jh: V(0.2, 0.5),
  k: V(0.3), g: V(0.3), ng: V(0.25),
  w: V(0.15, 0.9), y: V(0.2),
  aa: V(0.95), ae: V(0.8), ah: V(0.7), ax: V(0.45), ay: V(0.85), aw: V(0.75, 0.4),
  eh: V(0.6), ey: V(0.55), ih: V(0.4), iy: V(0.3),
  ao: V(0.65, 0.7), ow: V(0.55, 0.8), oy: V(0.6, 0.6), uh: V(0.35, 0.8), uw: V(0.3, 0.95),
};

/** IPA (eSpeak): the first symbol that decides the shape; stress and length marks dropped. */
const IPA: [RegExp, Viseme][] = [
  [/^[pbm]/, V(0, 0, true)],
  [/^[fv]/, V(0.08)],
  [/^[wʍ]/, V(0.15, 0.9)],
  [/^(tʃ|dʒ|[ʃʒ])/, V(0.2, 0.5)],
  [/^[ɹrɾʁʀ]/, V(0.25, 0.3)],
  [/^[tdnlszθðɬɲʎ]/, V(0.2)],
  [/^[kgŋxɣqχh]/, V(0.3)],
  [/^[jç]/, V(0.2)],
  [/^[aɑɐ]/, V(0.9)],
  [/^[æʌ]/, V(0.75)],
  [/^[ɛœ]/, V(0.6, 0.15)],
  [/^[eø]/, V(0.5, 0.1)],
  [/^[ɪiɨ]/, V(0.35)],
  [/^[yʏ]/, V(0.3, 0.85)],
  [/^[ɔɒ]/, V(0.65, 0.7)],
  [/^[o]/, V(0.55, 0.8)],
  [/^[ʊuɯ]/, V(0.3, 0.95)],
  [/^[əɚɜɘ]/, V(0.45, 0.1)],
];

export function visemeOf(cue: Pick<SpeechCue, 'phoneme' | 'alphabet'>): Viseme {
  if (cue.alphabet === 'arpabet') return ARPABET[cue.phoneme.toLowerCase().replace(/\d/g, '')] ?? V(0.3);
  const p = cue.phoneme.replace(/[ˈˌːˑ'ʲʰ̃ˀ_ \-.]/g, '');
  if (p === '') return SILENCE;
  return IPA.find(([re]) => re.test(p))?.[1] ?? V(0.3);
}

export interface MouthTrack {
  mouth: number[];
  round: number[];
}

/** Seconds the lips stay shut for a p, b or m at least. */
const MIN_CLOSURE = 0.08;

const smoothstep = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

/**
 * One mouth shape per video frame for `frames` frames at `fps`. Each phoneme's shape is
 * reached at its middle; between two middles the shape eases from one to the next. A
 * bilabial holds the lips shut over its own span. `loudness` (0..1 per frame, optional)
 * closes the mouth where the audio is silent, which keeps pauses still.
 */
export function mouthFromCues(cues: readonly SpeechCue[], frames: number, fps: number, loudness?: readonly number[]): MouthTrack {
  const keys = cues
    .filter((c) => c.endMs > c.startMs)
    .map((c) => ({ t: (c.startMs + c.endMs) / 2000, start: c.startMs / 1000, end: c.endMs / 1000, v: visemeOf(c) }));
  const mouth: number[] = [];
  const round: number[] = [];
  let k = 0;
  for (let f = 0; f < frames; f++) {
    const t = (f + 0.5) / fps;
    while (k + 1 < keys.length && keys[k + 1]!.t <= t) k++;
    const a = keys[k];
    const b = keys[k + 1];
    let open = 0, rnd = 0;
    if (a && b && t >= a.t) {
      const u = smoothstep((t - a.t) / Math.max(1e-3, b.t - a.t));
      open = a.v.open + (b.v.open - a.v.open) * u;
      rnd = a.v.round + (b.v.round - a.v.round) * u;
    } else if (a) {
      // Before the first middle, ease in from rest; after the last, ease out to rest.
      const edge = t < a.t ? smoothstep((t - a.start + 0.08) / Math.max(0.08, a.t - a.start + 0.08)) : 1 - smoothstep((t - a.t) / 0.12);
      open = a.v.open * edge;
      rnd = a.v.round * edge;
    }
    // Lips pressed for p, b, m over the phoneme, and for at least two frames (80 ms) around
    // its middle: a bilabial is often shorter than a frame, and a shut mouth that shows in
    // no frame is not seen.
    for (let j = Math.max(0, k - 2); j <= Math.min(keys.length - 1, k + 2); j++) {
      const c = keys[j]!;
      if (!c.v.closed) continue;
      const half = Math.max((c.end - c.start) / 2, MIN_CLOSURE / 2);
      if (Math.abs(t - c.t) <= half) open = 0;
    }
    const gate = loudness ? smoothstep(Math.min(1, (loudness[f] ?? 0) * 4)) : 1;
    mouth.push(open * (0.25 + 0.75 * gate));
    round.push(rnd);
  }
  return { mouth, round };
}
