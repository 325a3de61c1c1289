import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIO_FRAME, RtpEncoder, VIDEO_TICKS_PER_FRAME, audioArgs, videoArgs } from '../../../../src/compute/local/stream/encoders.ts';
import { h264AnnexB, ivf, parseRtp, pictures, vp8Frames, type Rtp } from './rtp.ts';

const encoders: RtpEncoder<number>[] = [];
afterEach(async () => {
  for (const e of encoders.splice(0)) { e.stop(); await e.exited(); }
});

async function until(ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Every packet must be matched to the unit it carries: a packet matched to the unit before or
// after its own would move the lips a frame off the sound.
describe('stream encoders', () => {
  for (const codec of ['vp8', 'h264'] as const) {
    it(`matches every ${codec} packet to the frame it carries, from the first frame on`, async () => {
      const got: { unit: number; rtp: Rtp }[] = [];
      const enc = await RtpEncoder.start<number>((port) => videoArgs(codec, 64, 64, port), VIDEO_TICKS_PER_FRAME,
        (p, unit) => got.push({ unit, rtp: parseRtp(Buffer.from(p)) }), () => {});
      encoders.push(enc);
      // Frames of one grey level each: frame i is 20 * i.
      for (let i = 0; i < 12; i++) {
        expect(enc.write(Buffer.alloc(64 * 64 * 3, 20 * i), i, false)).toBe(true);
        await new Promise((r) => setTimeout(r, 40));
      }
      // Every frame comes out as it goes in (none is held back waiting for the next).
      await until(() => got.some((g) => g.unit === 11));
      const units = [...new Set(got.map((g) => g.unit))];
      expect(units).toEqual([...Array(12).keys()]);
      const dir = await mkdtemp(join(tmpdir(), 'mimic-enc-'));
      try {
        const packets = got.map((g) => g.rtp);
        const decoded = codec === 'vp8'
          ? await pictures(dir, 'grey', ivf(vp8Frames(packets).map((f) => f.data), 64, 64), 'ivf', 64, 64)
          : await pictures(dir, 'grey', h264AnnexB(packets).stream, 'h264', 64, 64);
        expect(decoded.frames.map((f) => Math.round(f[0]! / 20))).toEqual(units);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('sends one Opus packet per 20 ms of sound, in order, none missing', async () => {
    const got: number[] = [];
    const enc = await RtpEncoder.start<number>(audioArgs, AUDIO_FRAME, (_p, unit) => got.push(unit), () => {});
    encoders.push(enc);
    for (let i = 0; i < 20; i++) enc.write(new Uint8Array(AUDIO_FRAME * 2), i, false);
    await until(() => got.length >= 18);
    // Consecutive from the first: libopus may keep the last block or so until more sound comes.
    expect(got).toEqual([...Array(got.length).keys()]);
  });
});
