/**
 * Where a closed mouth really is in the picture, when the face mesh does not see it. The mesh
 * tracker places the inner lips from the shape of the face; under a moustache it guesses, and
 * the mouth would open in the middle of the hair (Ernst) or above the picture's own mouth line
 * (Mehmet's engraving). Along each pair of inner lips the picture is read across the mouth:
 * - a visible mouth line is a dark valley (the shadow between the lips); if the valleys lie
 *   off the mesh's line by about 2 pixels or more (0.009 face heights, the median over the
 *   mouth), the line moves there;
 * - with no valley at all, hair covers the lips: the upper lip is hidden under it and the mouth
 *   opens at the hair's lower edge: found as the strongest step from light (hair) to dark (the
 *   shadow under it) below the mesh's line, and placed where the picture is halfway between.
 * Read once per picture; the rig then splits the face there (the hair above stays with the
 * upper face, what is under it drops with the jaw).
 */
import { LIPS_LOWER_INNER, LIPS_UPPER_INNER } from './landmarks.ts';
import type { Point3 } from './rig.ts';
import type { RgbImage } from './warp.ts';

/** A valley this much darker (levels) than the picture on both sides of it is a mouth line. */
const VALLEY_DEPTH = 20;
/** Valleys are searched from this far above the mesh's line to this far below (face heights). */
const VALLEY_FROM = -0.01;
const VALLEY_TO = 0.035;
/** The hair's lower edge is searched this far below the mesh's line (face heights). */
const EDGE_TO = 0.08;
/** The line moves only this far at least and at most (face heights; the least is about 2 px
 * on a render's crop, where faces are about 210 px high). */
const MOVE_MIN = 0.009;
const MOVE_MAX = 0.07;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export interface MouthLine {
  /** How far (pixels, along the face's down direction) each inner lip pair lies above the
   * picture's mouth line, one value per pair of `LIPS_UPPER_INNER`/`LIPS_LOWER_INNER`. */
  offsets: number[];
  /** Hair hides the lips: the line is the hair's lower edge. */
  hidden: boolean;
}

/** Where the picture's closed mouth is against `mesh`'s, or undefined where the mesh's line is the picture's. */
export function mouthLine(img: RgbImage, mesh: Point3[], up: [number, number], faceHeight: number): MouthLine | undefined {
  const H = faceHeight, right: [number, number] = [-up[1], up[0]];
  const lum = (x: number, y: number): number => {
    const xi = Math.min(img.width - 1, Math.max(0, Math.round(x))), yi = Math.min(img.height - 1, Math.max(0, Math.round(y)));
    const o = (yi * img.width + xi) * 3;
    return 0.299 * img.data[o]! + 0.587 * img.data[o + 1]! + 0.114 * img.data[o + 2]!;
  };
  const t0 = Math.round(-0.05 * H), t1 = Math.round((EDGE_TO + 0.05) * H);
  // Each pair's profile down through the mouth, five pixels wide, smoothed [1 2 1].
  const profiles = LIPS_UPPER_INNER.map((ui, k) => {
    const u = mesh[ui]!, l = mesh[LIPS_LOWER_INNER[k]!]!;
    const cx = (u[0] + l[0]) / 2, cy = (u[1] + l[1]) / 2;
    const raw: number[] = [];
    for (let t = t0 - 1; t <= t1 + 1; t++) {
      let s = 0;
      for (let q = -2; q <= 2; q++) s += lum(cx - up[0] * t + right[0] * q, cy - up[1] * t + right[1] * q);
      raw.push(s / 5);
    }
    return raw.slice(1, -1).map((v, i) => (raw[i]! + 2 * v + raw[i + 2]!) / 4);
  });
  const at = (p: number[], t: number) => p[t - t0]!;
  const reach = Math.max(2, Math.round(0.04 * H));
  const valley = (p: number[], t: number): number => {
    let above = 0, below = 0;
    for (let j = t - reach; j <= t; j++) above = Math.max(above, at(p, j));
    for (let j = t; j <= t + reach; j++) below = Math.max(below, at(p, j));
    return Math.min(above, below) - at(p, t);
  };
  // The pairs next to the corners see the cheeks' folds: the middle seven decide.
  const middle = profiles.slice(1, -1);
  const valleys = middle.map((p) => {
    let best = { t: 0, depth: -Infinity };
    for (let t = Math.round(VALLEY_FROM * H); t <= Math.round(VALLEY_TO * H); t++) {
      const d = valley(p, t);
      if (d > best.depth) best = { t, depth: d };
    }
    return best;
  });
  const spread = (inner: number[]): number[] => {
    // Each pair takes the median of itself and its neighbours; the end pairs their neighbour's.
    const s = inner.map((_, i) => median(inner.slice(Math.max(0, i - 1), i + 2)));
    const limit = MOVE_MAX * H;
    return [s[0]!, ...s, s.at(-1)!].map((v) => Math.max(-limit, Math.min(limit, v)));
  };

  if (median(valleys.map((v) => v.depth)) >= VALLEY_DEPTH) {
    const offsets = valleys.map((v) => (v.depth >= VALLEY_DEPTH ? v.t : 0));
    return Math.abs(median(offsets)) >= MOVE_MIN * H ? { offsets: spread(offsets), hidden: false } : undefined;
  }
  // No mouth line to see: the lips are under hair. Its lower edge is one line across the
  // mouth (single columns of a moustache are too noisy to follow): the strongest darkening of
  // the pairs' mean profile.
  const mean = middle[0]!.map((_, i) => middle.reduce((s, p) => s + p[i]!, 0) / middle.length);
  const step = (t: number) => (at(mean, t - 3) + at(mean, t - 2) + at(mean, t - 1) - at(mean, t + 1) - at(mean, t + 2) - at(mean, t + 3)) / 3;
  let best = { t: 0, step: -Infinity };
  for (let t = 0; t <= Math.round(EDGE_TO * H); t++) {
    const s = step(t);
    if (s > best.step) best = { t, step: s };
  }
  if (best.step < VALLEY_DEPTH) return undefined;
  // The edge of hair fades into its shadow over several pixels: the line is where the picture
  // is halfway between the hair and the shadow, which is where the eye puts the edge.
  let hair = -Infinity, shadow = Infinity;
  for (let t = 0; t <= best.t; t++) hair = Math.max(hair, at(mean, t));
  for (let t = best.t; t <= best.t + reach; t++) shadow = Math.min(shadow, at(mean, t));
  let edge = best.t;
  while (edge > 0 && at(mean, edge - 1) < (hair + shadow) / 2) edge--;
  if (edge < MOVE_MIN * H) return undefined;
  return { offsets: spread(middle.map(() => edge)), hidden: true };
}
