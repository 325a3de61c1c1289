/**
 * Whether two videos show the same person: the largest face of every sampled frame of one
 * against that of every sampled frame of the other, summarised by the median similarity.
 * The thresholds come from measurements on this machine (docs/face-identity.md).
 */
import type { FrameFaces } from './faces.ts';

/**
 * human.match.similarity (@vladmandic/human 3.3.6, default options: order 2, multiplier 25,
 * range 0.2..0.8): the Euclidean distance turned into 0..1, rounded to two decimals. Written
 * out here so identity checks do not load the model library.
 */
export function faceSimilarity(a: number[], b: number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  const dist = Math.round(100 * 25 * sum) / 100;
  if (dist === 0) return 1;
  const norm = (1 - Math.sqrt(dist) / 100 - 0.2) / (0.8 - 0.2);
  return Math.round(100 * Math.max(Math.min(norm, 1), 0)) / 100;
}

const largestDescriptor = (f: FrameFaces): number[] | undefined => {
  let best: FrameFaces['faces'][number] | undefined;
  for (const face of f.faces) if (!best || face.box[2] * face.box[3] > best.box[2] * best.box[3]) best = face;
  return best && best.descriptor.length > 0 ? best.descriptor : undefined;
};

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function identityScore(a: FrameFaces[], b: FrameFaces[]): { median: number; pairs: number } {
  const da = a.map(largestDescriptor).filter((d) => d !== undefined);
  const db = b.map(largestDescriptor).filter((d) => d !== undefined);
  const sims: number[] = [];
  for (const x of da) for (const y of db) sims.push(faceSimilarity(x, y));
  return { median: median(sims), pairs: sims.length };
}

/**
 * median >= accept: the same person; review <= median < accept: an operator looks;
 * below review: another person. Measured (docs/face-identity.md): same person 0.74-1.00,
 * different people at most 0.60 (look-alikes), p90 0.445.
 */
export const IDENTITY_THRESHOLDS: { accept: number; review: number } = { accept: 0.65, review: 0.45 };
