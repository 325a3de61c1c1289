/** extractAudio: the first audio stream of a video as 16 kHz mono 16-bit WAV, a range of it, or null without one. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAudio } from '../../src/footage/audio.ts';
import { ffmpeg, workDir } from './speech-fixtures.ts';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await workDir());
  // 6 s of picture with a 440 Hz stereo tone at 44.1 kHz; and the same picture without sound.
  await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=6', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=6', '-ac', '2',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(dir, 'talk.mp4')]);
  await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', join(dir, 'mute.mp4')]);
});
afterAll(() => cleanup());

describe('extractAudio', () => {
  it('writes the sound as a 16 kHz mono s16le WAV and answers its length', async () => {
    const out = join(dir, 'all.wav');
    const r = await extractAudio(join(dir, 'talk.mp4'), out);
    expect(r!.durationSec).toBeGreaterThan(5.8);
    expect(r!.durationSec).toBeLessThan(6.2);
    const wav = await readFile(out);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect(wav.readUInt16LE(34)).toBe(16);
  });

  it('cuts [fromSec, toSec)', async () => {
    const r = await extractAudio(join(dir, 'talk.mp4'), join(dir, 'part.wav'), { fromSec: 2, toSec: 4.5 });
    expect(r!.durationSec).toBeGreaterThan(2.4);
    expect(r!.durationSec).toBeLessThan(2.6);
    const tail = await extractAudio(join(dir, 'talk.mp4'), join(dir, 'tail.wav'), { fromSec: 4 });
    expect(tail!.durationSec).toBeGreaterThan(1.8);
    expect(tail!.durationSec).toBeLessThan(2.2);
  });

  it('answers null for a video without sound', async () => {
    expect(await extractAudio(join(dir, 'mute.mp4'), join(dir, 'mute.wav'))).toBeNull();
  });

  it('stops when aborted; a file that is not there has no sound (null)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(extractAudio(join(dir, 'talk.mp4'), join(dir, 'x.wav'), { signal: controller.signal })).rejects.toThrow('stop');
    await expect(extractAudio(join(dir, 'nothing-here.mp4'), join(dir, 'y.wav'))).resolves.toBeNull();
  });
});
