import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFaces } from '../../../../src/compute/local/faces.ts';
import { createLocalStreamRenderer, type LocalStreamRenderer } from '../../../../src/compute/local/stream/index.ts';
import type { StreamEvent, StreamOpenRequest, StreamRenderSession, StreamSpeech, VideoCodec } from '../../../../src/compute/stream.ts';
import { RenderError } from '../../../../src/errors.ts';
import { SAMPLE_PORTRAIT, meanColour, renderError } from '../../../helpers/video.ts';
import { toneSpeech } from '../../../helpers/tone-voice.ts';
import { decodeOpus, h264AnnexB, parseRtp, vp8Frames, type Rtp } from './rtp.ts';
import { newestPicture, receiver } from './session.ts';

let dir: string;
let renderer: LocalStreamRenderer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-stream-'));
  renderer = createLocalStreamRenderer();
});

afterAll(async () => {
  await renderer.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (over: Partial<StreamOpenRequest> = {}): StreamOpenRequest => ({
  streamId: 'st_test', sourcePath: SAMPLE_PORTRAIT, stitch: false, seed: 'seed-1', workDir: dir, ...over,
});

function speech(videoId: string, text: string, last = true): StreamSpeech {
  const s = toneSpeech(text, 'x');
  return { videoId, pcm: s.pcm, sampleRate: s.sampleRate, cues: s.phonemes, last };
}

async function withSession<T>(over: Partial<StreamOpenRequest>, body: (s: StreamRenderSession, r: ReturnType<typeof receiver>) => Promise<T>): Promise<T> {
  const r = receiver();
  const s = await renderer.open(request(over), r.sink, r.onEvent);
  try {
    return await body(s, r);
  } finally {
    await s.close();
  }
}

/** The newest decodable picture of the video packets, decoded in this suite's folder. */
const picture = (codec: VideoCodec, packets: Rtp[], width: number, height: number, name: string) => newestPicture(dir, codec, packets, width, height, name);

describe('local stream renderer', () => {
  it('warms ahead of the first stream: the render process runs, with its models loaded and no session open', async () => {
    const warmed = createLocalStreamRenderer();
    try {
      expect((await warmed.stats()).pid).toBeUndefined();
      await warmed.warm();
      expect(await warmed.stats()).toMatchObject({ sessions: 0, ffmpeg: 0, pid: expect.any(Number) });
      const r = receiver();
      const s = await warmed.open(request(), r.sink, r.onEvent);
      expect([s.width, s.height]).toEqual([512, 512]);
      await s.close();
    } finally {
      await warmed.close();
    }
  });

  for (const codec of ['vp8', 'h264'] as const) {
    it(`streams ${codec} video of the face and Opus sound while speaking, on one clock`, async () => {
      await withSession({}, async (s, r) => {
        expect([s.width, s.height]).toEqual([512, 512]);
        await s.start({ codec, fluent: false, warmup: false });
        s.speak(speech('v1', 'hello there my good friend how are you'));
        await r.until(() => r.kinds().includes('done:v1'), 'the script to end');
        expect(r.kinds()).toEqual(['started:v1', 'done:v1']);
        const done = r.events.find((e) => e.type === 'done')!;
        expect(done).toMatchObject({ interrupted: false });
        // 8 words of the tone voice: about 3.1 s of sound, counted from the samples played.
        expect((done as { spokenMs: number }).spokenMs).toBeGreaterThan(2900);
        expect((done as { spokenMs: number }).spokenMs).toBeLessThan(3400);

        expect(r.audio.length).toBeGreaterThan(100);
        expect(r.video.length).toBeGreaterThan(20);
        for (const [list, pt] of [[r.audio, 111], [r.video, 96]] as const) {
          expect(new Set(list.map((p) => p.payloadType))).toEqual(new Set([pt]));
          // Continuous sequence numbers.
          list.forEach((p, i) => i > 0 && expect(p.seq).toBe((list[i - 1]!.seq + 1) & 0xffff));
        }
        // 20 ms of Opus per packet, stamped on the 48 kHz clock; frames on 40 ms steps of the 90 kHz clock.
        expect(r.audio.every((p) => p.timestamp % 960 === 0)).toBe(true);
        expect(r.video.every((p) => p.timestamp % 3600 === 0)).toBe(true);
        // Speech without pauses between pieces: one packet per 20 ms slot.
        const steps = r.audio.slice(1).map((p, i) => p.timestamp - r.audio[i]!.timestamp);
        expect(steps.filter((d) => d !== 960)).toEqual([]);
        // Video and sound are on one clock: every frame's time (in seconds of its clock) lies within the sound's, the
        // first no earlier than the sound's start. (Not "at the same time": on a loaded machine the first frames may be
        // dropped as late, and the picture then starts a few slots after the sound; the lip-sync test checks alignment.)
        const audioFrom = r.audio[0]!.timestamp / 48_000, audioTo = r.audio.at(-1)!.timestamp / 48_000 + 0.02;
        for (const p of r.video) {
          expect(p.timestamp / 90_000).toBeGreaterThan(audioFrom - 0.05);
          expect(p.timestamp / 90_000).toBeLessThan(audioTo + 0.05);
        }

        // The Opus packets decode to the speech: as long, and as loud (the tone voice's vowels are at 0.8 of full scale).
        const sound = await decodeOpus(dir, `speech-${codec}`, r.audio.map((p) => p.payload));
        expect(sound.errors).toBe('');
        expect(Math.abs(sound.samples.length / 16 - (done as { spokenMs: number }).spokenMs)).toBeLessThan(100);
        const rms = Math.sqrt(sound.samples.reduce((a, v) => a + v * v, 0) / sound.samples.length);
        expect(rms).toBeGreaterThan(0.15);

        const { image, errors } = await picture(codec, r.video, s.width, s.height, `speech-${codec}`);
        expect(errors).toBe('');
        const faces = await detectFaces(image);
        expect(faces.length).toBe(1);
      });
    });
  }

  it('sends a warm-up clip, then ready, and no video while idle when not fluent', async () => {
    await withSession({}, async (s, r) => {
      await s.start({ codec: 'vp8', fluent: false, warmup: true });
      await r.until(() => r.events.some((e) => e.type === 'ready'), 'ready');
      expect(r.video.length).toBeGreaterThan(0);
      const { frames } = await picture('vp8', r.video, s.width, s.height, 'warmup');
      expect(frames).toBeGreaterThan(10);
      // After the warm-up nothing more: let a second pass, then nothing for another second.
      await new Promise((res) => setTimeout(res, 1000));
      const seen = [r.video.length, r.audio.length];
      await new Promise((res) => setTimeout(res, 1000));
      expect([r.video.length, r.audio.length]).toEqual(seen);
      // A script brings media back; its first frame is a keyframe (a fresh encoder), so the client can show it at once.
      const before = r.video.length, soundBefore = r.audio.length;
      const framesBefore = (await renderer.stats()).frames!;
      s.speak(speech('v1', 'one two three'));
      await r.until(() => r.kinds().includes('done:v1'), 'the script to end');
      expect(vp8Frames(r.video.slice(before))[0]!.key).toBe(true);
      expect(r.video[before]!.timestamp).toBeGreaterThan(r.video[before - 1]!.timestamp + 3600);
      // The script's first frame is not lost to the encoder change: it has the time of the script's
      // first sound, or, on a loaded machine, a late timer dropped that frame unrendered (counted);
      // none is rendered and then refused by an encoder.
      const framesAfter = (await renderer.stats()).frames!;
      expect(framesAfter.discarded).toBe(framesBefore.discarded);
      const firstFrameLag = Math.abs(r.video[before]!.timestamp / 90_000 - r.audio[soundBefore]!.timestamp / 48_000);
      if (framesAfter.dropped === framesBefore.dropped) expect(firstFrameLag).toBeLessThan(0.05);
    });
  });

  it('idles with video and sound between scripts when fluent', async () => {
    await withSession({}, async (s, r) => {
      await s.start({ codec: 'h264', fluent: true, warmup: false });
      await r.until(() => r.video.length > 50 && r.audio.length > 50 && h264AnnexB(r.video).nalTypes.includes(5), 'idle media');
      expect(r.events).toEqual([]);
      const { image } = await picture('h264', r.video, s.width, s.height, 'idle');
      expect((await detectFaces(image)).length).toBe(1);
    });
  });

  it('shows the presenter on a background colour: the corners take the colour, the face keeps its own', async () => {
    await withSession({ background: { kind: 'color', color: '#00b140' } }, async (s, r) => {
      await s.start({ codec: 'h264', fluent: true, warmup: false });
      await r.until(() => r.video.length > 30 && h264AnnexB(r.video).nalTypes.includes(5), 'video');
      const { image } = await picture('h264', r.video, s.width, s.height, 'background');
      const frame = Buffer.from(image.data);
      const near = (got: number[], want: number[]) => got.every((v, i) => Math.abs(v - want[i]!) <= 16);
      expect(near(meanColour(frame, 512, { x: 4, y: 4, w: 24, h: 24 }), [0, 177, 64])).toBe(true);
      expect(near(meanColour(frame, 512, { x: 484, y: 4, w: 24, h: 24 }), [0, 177, 64])).toBe(true);
      const face = meanColour(frame, 512, { x: 246, y: 236, w: 20, h: 20 });
      expect(face[0]).toBeGreaterThan(face[1] + 20);
    });
  });

  it('plays pieces of a script back to back and queues the next script after it', async () => {
    await withSession({}, async (s, r) => {
      await s.start({ codec: 'vp8', fluent: true, warmup: false });
      s.speak(speech('a', 'first piece', false));
      s.speak(speech('b', 'another script'));
      s.speak(speech('a', 'second piece', true));
      await r.until(() => r.kinds().includes('done:b'), 'both scripts');
      expect(r.kinds()).toEqual(['started:a', 'done:a', 'started:b', 'done:b']);
      const spoken = r.events.filter((e) => e.type === 'done').map((e) => (e as { spokenMs: number }).spokenMs);
      // Two words a piece (two pieces for a, one for b): about 0.86 s per piece.
      expect(spoken[0]).toBeGreaterThan(1.8 * spoken[1]!);
    });
  });

  it('keeps speech handed before the start, and plays it whole once started (the hub hands it over before the peer is up)', async () => {
    await withSession({}, async (s, r) => {
      s.speak(speech('early', 'said before the start'));
      expect(r.events).toEqual([]);
      await s.start({ codec: 'vp8', fluent: false, warmup: false });
      await r.until(() => r.kinds().includes('done:early'), 'the early script');
      expect(r.kinds()).toEqual(['started:early', 'done:early']);
      expect(r.events.at(-1)).toMatchObject({ interrupted: false, spokenMs: expect.any(Number) });
      expect((r.events.at(-1) as { spokenMs: number }).spokenMs).toBeGreaterThan(1000);
    });
  });

  it('interrupts at once and empties the queue', async () => {
    await withSession({}, async (s, r) => {
      await s.start({ codec: 'vp8', fluent: false, warmup: false });
      s.speak(speech('long', Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')));
      s.speak(speech('next', 'never heard'));
      await r.until(() => r.kinds().includes('started:long'), 'the first script to start');
      s.interrupt();
      await r.until(() => r.kinds().includes('done:next'), 'both scripts to end');
      expect(r.kinds()).toEqual(['started:long', 'done:long', 'done:next']);
      const [long, next] = r.events.filter((e) => e.type === 'done') as { spokenMs: number; interrupted: boolean }[];
      expect(long!.interrupted).toBe(true);
      expect(long!.spokenMs).toBeLessThan(30 * 390);
      expect(next).toMatchObject({ interrupted: true, spokenMs: 0 });
      // Back to idle: not fluent, so the media stops.
      await new Promise((res) => setTimeout(res, 1000));
      const seen = r.audio.length;
      await new Promise((res) => setTimeout(res, 1000));
      expect(r.audio.length).toBe(seen);
      // And it speaks again.
      s.speak(speech('again', 'hello'));
      await r.until(() => r.kinds().includes('done:again'), 'the next script');
      expect(r.events.at(-1)).toMatchObject({ type: 'done', videoId: 'again', interrupted: false });
    });
  });

  it('streams the whole picture with stitch, its longer side at most 1280 and even', async () => {
    const big = join(dir, 'wide.png');
    await sharp(SAMPLE_PORTRAIT).resize(1101, 1101).extend({ left: 300, right: 301, background: '#808080' }).png().toFile(big);
    await withSession({ sourcePath: big, stitch: true }, async (s, r) => {
      expect(s.width).toBe(1280);
      expect(s.height % 2).toBe(0);
      expect(s.height).toBe(Math.round((1101 * 1280) / 1702) & ~1);
      await s.start({ codec: 'h264', fluent: true, warmup: false });
      // A 1280-wide keyframe spans many packets: wait for a whole IDR slice, not a packet count.
      await r.until(() => r.video.length > 20 && h264AnnexB(r.video).nalTypes.includes(5), 'a whole keyframe');
      const { image } = await picture('h264', r.video, s.width, s.height, 'stitch');
      expect((await detectFaces(image)).length).toBe(1);
    });
  });

  it('fails with FaceError for a picture without a face, and SourceError for one that is not a picture', async () => {
    const plain = join(dir, 'plain.png');
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366aa' } }).png().toFile(plain);
    const r = receiver();
    const err = await renderError(renderer.open(request({ sourcePath: plain }), r.sink, r.onEvent));
    expect(err.kind).toBe('FaceError');
    const missing = await renderError(renderer.open(request({ sourcePath: join(dir, 'none.png') }), r.sink, r.onEvent));
    expect(missing).toBeInstanceOf(RenderError);
    expect(missing.kind).toBe('SourceError');
  });

  it('frees every encoder when sessions close, and the render process on close', async () => {
    const sessions: StreamRenderSession[] = [];
    let speaking: ReturnType<typeof receiver> | undefined;
    for (let i = 0; i < 12; i++) {
      const r = receiver();
      if (i === 4) speaking = r;
      const s = await renderer.open(request({ streamId: `st_${i}` }), r.sink, r.onEvent);
      sessions.push(s);
      // Some started (fluent or not), some never started, one speaking when closed.
      if (i % 3 !== 2) await s.start({ codec: i % 2 ? 'vp8' : 'h264', fluent: i % 3 === 0, warmup: i % 4 === 0 });
      if (i === 4) s.speak(speech('x', 'closing while speaking'));
      if (i % 2 === 0) await s.close();
    }
    // Closing ends what was being said as interrupted (its spoken time is known), before close returns.
    expect(speaking!.events.at(-1)).toMatchObject({ type: 'done', videoId: 'x', interrupted: true });
    expect((await renderer.stats()).sessions).toBe(6);
    expect((await renderer.stats()).ffmpeg).toBeGreaterThan(0);
    await Promise.all(sessions.map((s) => s.close()));
    await Promise.all(sessions.map((s) => s.close()));
    expect(await renderer.stats()).toMatchObject({ sessions: 0, ffmpeg: 0 });

    const own = createLocalStreamRenderer();
    const r = receiver();
    const s = await own.open(request(), r.sink, r.onEvent);
    await s.start({ codec: 'vp8', fluent: true, warmup: false });
    await r.until(() => r.video.length > 0, 'video');
    const { pid, ffmpeg } = await own.stats();
    expect(ffmpeg).toBe(2);
    const encoders = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    expect(encoders.length).toBe(2);
    await own.close();
    const alive = (p: number) => { try { process.kill(p, 0); return true; } catch { return false; } };
    await r.until(() => ![pid!, ...encoders].some(alive), 'the render process and its encoders to be gone', 10_000);
    expect(await own.stats()).toEqual({ sessions: 0, ffmpeg: 0 });
    await expect(own.open(request(), r.sink, r.onEvent)).rejects.toThrow(/closed/);
  });
});
