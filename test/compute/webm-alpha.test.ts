/** Joining a colour VP9 webm and an alpha VP9 webm into one webm with alpha (src/compute/local/webm-alpha.ts). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { joinAlpha } from '../../src/compute/local/webm-alpha.ts';
import { rgbaFrame } from '../helpers/video.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-webm-alpha-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A 64x64 VP9 webm of `frames` frames: `source` is an ffmpeg lavfi video source. */
async function encode(name: string, source: string, frames: number, audio = false): Promise<string> {
  const file = join(dir, name);
  const args = ['-y', '-v', 'error', '-f', 'lavfi', '-i', source];
  if (audio) args.push('-f', 'lavfi', '-i', 'sine=frequency=300:duration=1', '-c:a', 'libopus', '-shortest');
  args.push('-frames:v', String(frames), '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8', '-f', 'webm', file);
  const r = await runFfmpeg(args);
  if (r.code !== 0) throw new Error(r.stderr);
  return file;
}

describe('joinAlpha', () => {
  it('makes a webm whose alpha is the second video\'s luma, frame for frame, with the first\'s colour and sound', async () => {
    const colour = await encode('colour.webm', 'color=c=red:s=64x64:r=25', 20, true);
    // The alpha: left half black (transparent), right half white (opaque); from frame 10 on, all white.
    const alpha = await encode('alpha.webm', "color=c=black:s=64x64:r=25,geq=lum='if(gte(X,32)+gte(N,10),255,0)':cb=128:cr=128", 20);
    const out = join(dir, 'joined.webm');
    await joinAlpha(colour, alpha, out);
    const info = (await runFfmpeg(['-i', out])).stderr;
    expect(info).toMatch(/alpha_mode\s*: 1/);
    expect(info).toMatch(/Audio: opus/);
    const at = (frame: Buffer, x: number, y: number) => [...frame.subarray((y * 64 + x) * 4, (y * 64 + x) * 4 + 4)];
    const early = rgbaFrame(out, 3, 64, 64);
    expect(at(early, 4, 30)[3]).toBeLessThan(10);
    expect(at(early, 60, 30)[3]).toBeGreaterThan(245);
    expect(at(early, 60, 30)[0]).toBeGreaterThan(200);
    const late = rgbaFrame(out, 15, 64, 64);
    expect(at(late, 4, 30)[3]).toBeGreaterThan(245);
  });

  it('refuses two videos of different lengths', async () => {
    const colour = await encode('c5.webm', 'color=c=red:s=64x64:r=25', 5);
    const alpha = await encode('a4.webm', 'color=c=white:s=64x64:r=25', 4);
    await expect(joinAlpha(colour, alpha, join(dir, 'bad.webm'))).rejects.toThrow(/5 colour frames but 4 alpha frames/);
  });
});
