/**
 * The identity score on made-up descriptors: the similarity is human's own (compared with
 * human.match.similarity on random descriptors), the largest face of each frame is the one
 * compared, frames without a face are skipped, and the median is taken over every pair.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FaceObservation, FrameFaces } from '../../src/footage/faces.ts';
import { faceSimilarity, identityScore, IDENTITY_THRESHOLDS } from '../../src/footage/identity.ts';

const require = createRequire(import.meta.url);

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
/**
 * A 1024-d descriptor with components in ±0.5 (two such random ones score about 0.25, as two
 * people do), or one `near` another (spread 0: the same; 1: about 0.35).
 */
function descriptor(rnd: () => number, near?: number[], spread = 1): number[] {
  return Array.from({ length: 1024 }, (_, i) => (near ? near[i]! : 0) + spread * (rnd() - 0.5));
}
const face = (d: number[], size: number): FaceObservation => ({ box: [0, 0, size, size], score: 0.9, yaw: 0, pitch: 0, roll: 0, mouthOpen: 0, descriptor: d });
const frame = (...faces: FaceObservation[]): FrameFaces => ({ timeSec: 0, width: 640, height: 480, faces });

describe('faceSimilarity', () => {
  it('is human.match.similarity', () => {
    const humanDir = dirname(dirname(require.resolve('@vladmandic/human')));
    const { Human } = require(join(humanDir, 'dist', 'human.node-wasm.js')) as { Human: new (c: object) => { match: { similarity(a: number[], b: number[]): number } } };
    const human = new Human({ backend: 'wasm', debug: false });
    const rnd = random(7);
    const base = descriptor(rnd);
    const values = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const other = descriptor(rnd, base, (i % 10) * 0.12);
      const ours = faceSimilarity(base, other);
      values.add(ours);
      expect(ours).toBe(human.match.similarity(base, other));
    }
    expect(values.size).toBeGreaterThan(5); // the comparison covered a range, not one clamped value
    expect(faceSimilarity(base, base)).toBe(1);
    expect(faceSimilarity(base, [])).toBe(0);
  });
});

describe('identityScore', () => {
  const rnd = random(11);
  const anna = descriptor(rnd), ben = descriptor(rnd);
  const annaLike = (spread: number) => descriptor(rnd, anna, spread);

  it('compares the largest face of every frame of one video with that of every frame of the other', () => {
    const a = [frame(face(anna, 200), face(ben, 50)), frame(face(ben, 40), face(annaLike(0.1), 180))];
    const b = [frame(face(annaLike(0.1), 150)), frame(face(annaLike(0.1), 160)), frame(face(anna, 170))];
    const same = identityScore(a, b);
    expect(same.pairs).toBe(6);
    expect(same.median).toBeGreaterThanOrEqual(IDENTITY_THRESHOLDS.accept);
    // The small face in the background is not the one compared: with it as the largest, it is another person.
    const swapped = [frame(face(anna, 10), face(ben, 200))];
    expect(identityScore(swapped, b).median).toBeLessThan(IDENTITY_THRESHOLDS.review);
  });

  it('skips frames without a face, takes the median, and says when nothing was compared', () => {
    const sims = [0.1, 0.3, 0.6].map((s) => annaLike(s));
    const a = [frame(), frame(face(anna, 100)), frame()];
    const b = sims.map((d) => frame(face(d, 100)));
    const r = identityScore(a, b);
    expect(r.pairs).toBe(3);
    expect(r.median).toBe(faceSimilarity(anna, sims[1]!));
    expect(identityScore([frame()], b)).toEqual({ median: 0, pairs: 0 });
  });

  it('has a review band below acceptance', () => {
    expect(IDENTITY_THRESHOLDS.review).toBeLessThan(IDENTITY_THRESHOLDS.accept);
    expect(IDENTITY_THRESHOLDS.review).toBeGreaterThan(0);
  });
});
