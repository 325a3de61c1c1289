/**
 * The face rig's mouth, on the built-in presenters' real face meshes: the jaw drop opens the lips
 * as a lens (the whole lower lip comes down, most in the middle, the corners stay), and the
 * dark interior fills that opening; with the mouth at rest nothing moves.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { detectFaces } from '../../src/compute/local/faces.ts';
import { decodeImage } from '../../src/compute/local/image.ts';
import { LIPS_LOWER_INNER, LIPS_UPPER_INNER, MOUTH_CORNER_INNER } from '../../src/compute/local/landmarks.ts';
import { neutralFrame } from '../../src/compute/local/motion.ts';
import { buildRig, rigFrame, type Rig } from '../../src/compute/local/rig.ts';
import { BUILT_IN_PRESENTERS } from '../../src/presenters/built-in.ts';

const rigs = new Map<string, Rig>();

beforeAll(async () => {
  for (const p of BUILT_IN_PRESENTERS) {
    const img = await decodeImage(p.image);
    const [face] = await detectFaces(img);
    rigs.set(p.name, buildRig([face!.mesh], img.width, img.height));
  }
}, 120_000);

/** How far control point `i` of the face moved down (pixels) in `dst`. */
const drop = (rig: Rig, dst: Float64Array, i: number) => dst[2 * i + 1]! - rig.src[2 * i + 1]!;

function area(poly: number[]): number {
  let a = 0;
  for (let i = 0; i < poly.length; i += 2) {
    const j = (i + 2) % poly.length;
    a += poly[i]! * poly[j + 1]! - poly[j]! * poly[i + 1]!;
  }
  return Math.abs(a) / 2;
}

describe('the rig\'s mouth', () => {
  // Grace's mouth line curves; Ernst's moustache makes the tracker cross his inner lips.
  it.each(BUILT_IN_PRESENTERS.map((p) => p.name))('opens the lips of %s as a lens: the whole lower lip drops, most in the middle, the corners stay', (name) => {
    const rig = rigs.get(name)!;
    const { dst, mouths } = rigFrame(rig, { ...neutralFrame(), mouth: 0.8 });
    const drops = LIPS_LOWER_INNER.map((i) => drop(rig, dst, i));
    const middle = drops[4]!;
    expect(middle).toBeGreaterThan(0.05 * rig.faces[0]!.height);
    // Every inner point of the lower lip comes down, the ones beside the middle nearly as far.
    for (const d of drops) expect(d).toBeGreaterThan(0.15 * middle);
    for (const d of drops.slice(2, 7)) expect(d).toBeGreaterThan(0.6 * middle);
    for (const c of MOUTH_CORNER_INNER) expect(Math.abs(drop(rig, dst, c))).toBeLessThan(0.15 * middle);
    // The upper lip lifts a little at most.
    for (const i of LIPS_UPPER_INNER) expect(drop(rig, dst, i)).toBeLessThanOrEqual(0.01);

    // The dark interior fills a lens, not a sliver: its area is most of the mouth's width times
    // the middle drop (a half-ellipse fills 79 %, a triangle 50 %), whatever the curve of the
    // mouth (a smile opens as a crescent of the same area).
    expect(mouths).toHaveLength(1);
    const [c0, c1] = MOUTH_CORNER_INNER.map((c) => dst[2 * (rig.faces[0]!.first + c)]!);
    expect(area(mouths[0]!.poly) / (Math.abs(c1! - c0!) * middle)).toBeGreaterThan(0.65);
  });

  it('moves nothing with the mouth at rest, and shuts it completely', () => {
    const rig = rigs.get('Grace')!;
    const { dst, mouths } = rigFrame(rig, neutralFrame());
    expect(mouths).toEqual([]);
    for (const i of [...LIPS_LOWER_INNER, ...LIPS_UPPER_INNER]) expect(drop(rig, dst, i)).toBe(0);
  });
});
