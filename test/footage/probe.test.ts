/**
 * probeVideo on generated files: the facts of a real video with and without sound, and the
 * refusals: not media, no video, a still picture, and a file whose header is whole but whose
 * pictures are cut off (only decoding finds that).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../src/media/ffmpeg.ts';
import { FootageError, probeVideo } from '../../src/footage/probe.ts';
import { rejectionOf } from '../helpers/rejection.ts';
import { ffmpeg, PRESENTER, stillVideo } from './face-videos.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-footage-probe-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('probeVideo', () => {
  it('reads a video with sound: duration, size, rate and codecs', async () => {
    const file = stillVideo(join(dir, 'sound.mp4'), PRESENTER('grace'), { seconds: 3, vf: 'scale=320:240', audio: true });
    const p = await probeVideo(file);
    expect(p).toMatchObject({ width: 320, height: 240, fps: 25, videoCodec: 'h264', hasAudio: true, audioCodec: 'aac' });
    expect(p.durationSec).toBeGreaterThan(2.9);
    expect(p.durationSec).toBeLessThan(3.2);
  });

  it('says when there is no sound, and reads other containers (VP9 WebM)', async () => {
    const file = join(dir, 'mute.webm');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=2', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-an', file);
    const p = await probeVideo(file);
    expect(p).toMatchObject({ width: 160, height: 120, fps: 10, videoCodec: 'vp9', hasAudio: false, audioCodec: null });
  });

  it('refuses a file that is not media as undecodable', async () => {
    const file = join(dir, 'notes.mp4');
    await writeFile(file, 'this is not a video\n'.repeat(100));
    const err = await rejectionOf(probeVideo(file), FootageError);
    expect(err.reason).toBe('undecodable');
  });

  it('refuses sound without pictures, and a still picture, as no-video', async () => {
    const wav = join(dir, 'tone.wav');
    ffmpeg('-f', 'lavfi', '-i', 'sine=f=300:d=1', wav);
    expect((await rejectionOf(probeVideo(wav), FootageError)).reason).toBe('no-video');
    expect((await rejectionOf(probeVideo(PRESENTER('grace')), FootageError)).reason).toBe('no-video');
  });

  it('decodes: a file cut short after a whole header is undecodable, though `ffmpeg -i` reads its header', async () => {
    const whole = stillVideo(join(dir, 'whole.mp4'), PRESENTER('ernst'), { seconds: 4, vf: 'scale=160:160,noise=alls=30:allf=t', extra: ['-movflags', '+faststart'] });
    const bytes = await readFile(whole);
    const cut = join(dir, 'cut.mp4');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.3)));
    expect((await probe(cut)).video).toMatchObject({ width: 160, height: 160 });
    const err = await rejectionOf(probeVideo(cut), FootageError);
    expect(err.reason).toBe('undecodable');
    expect(err.message).toMatch(/does not decode/);
  });

  it('stops when aborted', async () => {
    const file = stillVideo(join(dir, 'abort.mp4'), PRESENTER('grace'), { seconds: 1, vf: 'scale=160:160' });
    const ac = new AbortController();
    ac.abort();
    const err = await probeVideo(file, ac.signal).then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
  });
});
