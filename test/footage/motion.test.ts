/** Motion energy on generated videos: a still picture against the same picture panning and shaking. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { motionEnergy, percentile } from '../../src/footage/motion.ts';
import { PRESENTER, stillVideo } from './face-videos.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-footage-motion-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('motionEnergy', () => {
  it('is near 0 on a still picture and clearly above on a pan and a shake, over the asked range only', async () => {
    // Still for the first 2 s, then panning: the range decides what is measured.
    const file = stillVideo(join(dir, 'still-then-pan.mp4'), PRESENTER('grace'), {
      seconds: 4, vf: "scale=400:400,crop=240:240:'if(lt(t,2),20,20+40*(t-2))':20",
    });
    const still = await motionEnergy(file, { fromSec: 0, toSec: 1.8 });
    const pan = await motionEnergy(file, { fromSec: 2.2, toSec: 4 });
    expect(still.frames).toBeGreaterThanOrEqual(40);
    expect(still.frames).toBeLessThanOrEqual(46);
    expect(still.mean).toBeLessThan(0.5);
    expect(still.p95).toBeLessThan(0.5);
    expect(pan.mean).toBeGreaterThan(2);
    expect(pan.p95).toBeGreaterThanOrEqual(pan.mean * 0.9);

    const shake = stillVideo(join(dir, 'shake.mp4'), PRESENTER('ernst'), {
      seconds: 2, vf: "scale=280:280,crop=240:240:'20+12*sin(2*PI*t*3)':'20+12*cos(2*PI*t*2)'",
    });
    expect((await motionEnergy(shake, { fromSec: 0, toSec: 2 })).mean).toBeGreaterThan(2);
  });

  it('refuses an empty range', async () => {
    await expect(motionEnergy('/nonexistent.mp4', { fromSec: 3, toSec: 3 })).rejects.toThrow(RangeError);
  });

  it('percentile picks the value at or above the share', () => {
    const v = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(v, 95)).toBe(95);
    expect(percentile([], 95)).toBe(0);
  });
});
