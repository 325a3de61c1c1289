import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVER_BANK, DRIVER_CATEGORIES } from '../../src/animations/driver-bank.ts';
import type { ComputeBackend, RenderRequest } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { videoDriverMotion } from '../../src/compute/local/driver-video.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { decodeImage } from '../../src/compute/local/image.ts';
import { bankMotion } from '../../src/compute/local/motion.ts';
import { mouthFromAudio, synthesizeSong, wavBytes } from '../../src/compute/local/song.ts';
import { measureLipSync } from '../../src/compute/local/lipsync.ts';
import { SAMPLE_PORTRAIT as SAMPLE, meanDiff, renderError, renderRequest, rgbFrame, videoFacts } from '../helpers/video.ts';

let dir: string;
let backend: ComputeBackend;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mimic-local-'));
  backend = createLocalBackend();
});

afterAll(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

const request = (over: Partial<RenderRequest> & { name: string }): RenderRequest => renderRequest(dir, over);

describe('bank motion tracks', () => {
  it('resolves every driver of the bank, deterministically, at 25 fps and 4-10 s', () => {
    for (const category of DRIVER_CATEGORIES) {
      for (const name of DRIVER_BANK[category].drivers) {
        const track = bankMotion(category, name);
        expect(track, `${category}/${name}`).not.toBeNull();
        expect(track!.fps).toBe(25);
        expect(track!.frames.length).toBeGreaterThanOrEqual(100);
        expect(track!.frames.length).toBeLessThanOrEqual(250);
        expect(bankMotion(category, name)!.frames[40]).toEqual(track!.frames[40]);
        expect(Boolean(track!.audio)).toBe(category === 'classics');
      }
    }
    expect(bankMotion('fun', 'driver-99')).toBeNull();
    expect(bankMotion('nope', 'driver-01')).toBeNull();
  });

  it('gives drivers of a category different motion, and categories their character', () => {
    const spread = (c: string, n: string, key: 'yaw' | 'roll' | 'mouth') => {
      const v = bankMotion(c, n)!.frames.map((f) => f[key]);
      return Math.max(...v) - Math.min(...v);
    };
    expect(bankMotion('dance', 'driver-01')!.frames.map((f) => f.roll)).not.toEqual(
      bankMotion('dance', 'driver-02')!.frames.map((f) => f.roll),
    );
    expect(spread('subtle', 'driver-01', 'yaw')).toBeLessThan(spread('nostalgia', 'driver-01', 'yaw'));
    expect(spread('fun', 'driver-01', 'mouth')).toBeGreaterThan(0.6);
    expect(spread('dance', 'driver-01', 'roll')).toBeGreaterThan(8);
  });

  it('opens the mouth of a classics driver with the loudness of its song', () => {
    const track = bankMotion('classics', 'driver-la-cucaracha')!;
    const loud = mouthFromAudio(track.audio!, 25);
    expect(track.frames.length).toBe(loud.length);
    const mouth = track.frames.map((f) => f.mouth);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const mm = mean(mouth), ml = mean(loud);
    const cov = mean(mouth.map((m, i) => (m - mm) * (loud[i]! - ml)));
    const corr = cov / Math.sqrt(mean(mouth.map((m) => (m - mm) ** 2)) * mean(loud.map((l) => (l - ml) ** 2)));
    expect(corr).toBeGreaterThan(0.95);
    expect(Math.min(...mouth)).toBeLessThan(0.1); // it closes between phrases
    expect(Math.max(...mouth)).toBeGreaterThan(0.5);
  });
});

describe('local backend', () => {
  it('renders a bank driver from the sample portrait as a 512x512 mp4 whose face moves', async () => {
    // The caller's event loop must stay free while the render runs (it runs in a child
    // process): a timer keeps firing throughout. Counted, not timed, so load cannot fail it.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const progress: number[] = [];
    const req = request({ name: 'fun', onProgress: (done) => progress.push(done) });
    const result = await backend.run('animation.render', req).finally(() => clearInterval(ticker));
    const track = bankMotion('fun', 'driver-01')!;

    const facts = videoFacts(req.outputPath);
    expect(facts.decodeErrors).toBe('');
    expect(facts.brand).toBe('isom');
    expect(facts.hasVideo).toBe(true);
    expect(facts.hasAudio).toBe(false);
    expect([facts.width, facts.height]).toEqual([512, 512]);
    expect(facts.frames).toBe(track.frames.length);

    const m = result.metadata;
    expect(m.num_frames).toBe(track.frames.length);
    expect(m.resolution).toEqual(['512', '512']);
    expect(m.video_fps).toBe(25);
    expect(m.processing_fps).toBeGreaterThan(0);
    expect(m.size_kib).toBeGreaterThan(10);
    expect(m.faces).toHaveLength(1);
    expect(m.faces[0]).toMatchObject({ face_id: 0, overlap: 'no' });
    const [l, t, r, b] = m.faces[0]!.detection;
    expect(l).toBeGreaterThan(120);
    expect(r).toBeLessThan(330);
    expect(t).toBeGreaterThan(20);
    expect(b).toBeLessThan(230);
    expect(m.source_pose.every((a) => Math.abs(a) < 20)).toBe(true);
    expect(result.faceIds).toEqual([0]);
    expect(progress.at(-1)).toBe(track.frames.length);
    expect(ticks).toBeGreaterThan(5);

    // The frame where the driver moves most, against the first frame.
    const motion = track.frames.map((f) => Math.abs(f.yaw) + Math.abs(f.roll) + Math.abs(f.pitch) + 10 * f.mouth);
    const busiest = motion.indexOf(Math.max(...motion));
    const a = rgbFrame(req.outputPath, 0, 512, 512);
    const z = rgbFrame(req.outputPath, busiest, 512, 512);
    const face = meanDiff(a, z, 512, { x: 176, y: 176, w: 160, h: 160 });
    const corner = meanDiff(a, z, 512, { x: 0, y: 0, w: 40, h: 40 });
    expect(face).toBeGreaterThan(4);
    expect(corner).toBeLessThan(1.5);
  }, 120_000);

  it('renders a classics driver as mov with the sound of its song', async () => {
    const req = request({
      name: 'classics', resultFormat: 'mov', mute: false,
      driver: { kind: 'bank', category: 'classics', name: 'driver-happy-birthday-to-you' },
    });
    const result = await backend.run('animation.render', req);
    const facts = videoFacts(req.outputPath);
    expect(facts.decodeErrors).toBe('');
    expect(facts.brand).toBe('qt  ');
    expect(facts.hasAudio).toBe(true);
    expect(facts.frames).toBe(result.metadata.num_frames);
    expect(result.metadata.num_frames).toBe(bankMotion('classics', 'driver-happy-birthday-to-you')!.frames.length);
  }, 120_000);

  it('speaks an audio with the speech driver, as long as the audio, and writes a growing HLS playlist beside it', async () => {
    // A sung melody (syllables with gaps) stands in for speech: no cues, so the lips are read from the sound (audio-visemes.ts).
    const audioPath = join(dir, 'speech.wav');
    await writeFile(audioPath, wavBytes(synthesizeSong('driver-happy-birthday-to-you').pcm));
    const previewDir = join(dir, 'preview');
    await mkdir(previewDir);
    const req = request({ name: 'speech', mute: false, previewDir, driver: { kind: 'speech', audioPath, cues: [], seed: 'speech-test' } });
    const result = await backend.run('animation.render', req);
    const facts = videoFacts(req.outputPath);
    expect(facts.decodeErrors).toBe('');
    expect(facts.hasAudio).toBe(true);
    const song = synthesizeSong('driver-happy-birthday-to-you').pcm;
    expect(Math.abs(result.metadata.num_frames - Math.floor((song.samples.length / song.sampleRate) * 25))).toBeLessThanOrEqual(1);
    const playlist = await readFile(join(previewDir, 'index.m3u8'), 'utf8');
    expect(playlist).toMatch(/#EXT-X-PLAYLIST-TYPE:EVENT/);
    expect(playlist).toMatch(/#EXT-X-ENDLIST/);
    expect(playlist.match(/seg\d+\.ts/g)!.length).toBeGreaterThanOrEqual(5);
    expect((await runFfmpeg(['-v', 'error', '-i', join(previewDir, 'index.m3u8'), '-f', 'null', '-'])).code).toBe(0);
    // The lips move with the sound, in time.
    const sync = await measureLipSync(req.outputPath);
    expect(Math.abs(sync.offsetMs)).toBeLessThanOrEqual(80);
    expect(sync.correlation).toBeGreaterThan(0.3);
  }, 180_000);

  it('writes the HLS preview of a silent render too', async () => {
    const previewDir = join(dir, 'preview-silent');
    await mkdir(previewDir);
    const req = request({ name: 'silent-preview', previewDir, driver: { kind: 'bank', category: 'subtle', name: 'driver-01' } });
    await backend.run('animation.render', req);
    expect(videoFacts(req.outputPath)).toMatchObject({ decodeErrors: '', hasAudio: false });
    expect(await readFile(join(previewDir, 'index.m3u8'), 'utf8')).toMatch(/seg000\.ts[\s\S]*#EXT-X-ENDLIST/);
  }, 120_000);

  it('renders the whole picture with stitch, at the source size rounded down to even', async () => {
    const odd = join(dir, 'odd.png');
    await sharp(SAMPLE).extract({ left: 20, top: 0, width: 451, height: 391 }).png().toFile(odd);
    const req = request({ name: 'stitch', sourcePath: odd, stitch: true, driver: { kind: 'bank', category: 'subtle', name: 'driver-03' } });
    const result = await backend.run('animation.render', req);
    const facts = videoFacts(req.outputPath);
    expect(facts.decodeErrors).toBe('');
    expect([facts.width, facts.height]).toEqual([450, 390]);
    expect(result.metadata.resolution).toEqual(['450', '390']);
  }, 120_000);

  it('fails with FaceError on a picture without a face', async () => {
    const w = 256, h = 256;
    const px = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px.set([x, y, (x * y) % 256], (y * w + x) * 3);
    const path = join(dir, 'gradient.png');
    await sharp(px, { raw: { width: w, height: h, channels: 3 } }).png().toFile(path);
    const err = await renderError(backend.run('animation.render', request({ name: 'noface', sourcePath: path })));
    expect(err.kind).toBe('FaceError');
  }, 60_000);

  it('decodes bmp and tiff sources as well as png and jpg', async () => {
    const bmp = join(dir, 'sample.bmp');
    const r = await runFfmpeg(['-y', '-loglevel', 'error', '-i', SAMPLE, bmp]);
    expect(r.code, r.stderr).toBe(0);
    const tiff = join(dir, 'sample.tiff');
    await sharp(SAMPLE).tiff().toFile(tiff);
    for (const path of [bmp, tiff]) {
      const img = await decodeImage(path);
      expect([img.width, img.height, img.data.length]).toEqual([512, 512, 512 * 512 * 3]);
    }
  });

  it('fails with SourceError on a file that is not a picture', async () => {
    const path = join(dir, 'broken.jpg');
    await writeFile(path, 'this is not a jpeg');
    const err = await renderError(backend.run('animation.render', request({ name: 'broken', sourcePath: path })));
    expect(err.kind).toBe('SourceError');
  }, 60_000);

  it('fails with DriverError on a driver video that does not decode', async () => {
    const path = join(dir, 'driver.mp4');
    await writeFile(path, 'not a video');
    const err = await renderError(backend.run('animation.render', request({ name: 'baddriver', driver: { kind: 'video', path } })));
    expect(err.kind).toBe('DriverError');
  }, 60_000);

  it('rejects an aborted render with an AbortError, and renders again afterwards', async () => {
    const ac = new AbortController();
    const req = request({
      name: 'aborted', signal: ac.signal, driver: { kind: 'bank', category: 'nostalgia', name: 'driver-02' },
      onProgress: (done) => { if (done >= 20) ac.abort(); },
    });
    const err = await backend.run('animation.render', req).then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(req.outputPath)).toBe(false);

    const pre = new AbortController();
    pre.abort();
    const early = await backend.run('animation.render', request({ name: 'pre', signal: pre.signal })).then(() => undefined, (e: unknown) => e);
    expect((early as Error).name).toBe('AbortError');

    const after = await backend.run('animation.render', request({ name: 'after', driver: { kind: 'bank', category: 'subtle', name: 'driver-01' } }));
    expect(after.metadata.num_frames).toBe(bankMotion('subtle', 'driver-01')!.frames.length);
  }, 120_000);

  describe('with a driver video', () => {
    const SECONDS = 3;
    let driverPath: string;

    beforeAll(async () => {
      // A driver with a face, motion and sound: a classics render, made small and short.
      const full = join(dir, 'driver-full.mp4');
      await backend.run('animation.render', request({
        name: 'driver-full', outputPath: full, mute: false,
        driver: { kind: 'bank', category: 'classics', name: 'driver-la-cucaracha' },
      }));
      driverPath = join(dir, 'driver-small.mp4');
      const r = await runFfmpeg(['-y', '-loglevel', 'error', '-i', full, '-t', String(SECONDS), '-vf', 'scale=256:256', '-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac', driverPath]);
      expect(r.code, r.stderr).toBe(0);
    }, 120_000);

    it('tracks the driver face: head roll and mouth follow the driver', async () => {
      const { track, audioPath } = await videoDriverMotion(driverPath, dir);
      const ref = bankMotion('classics', 'driver-la-cucaracha')!.frames.slice(0, SECONDS * 25);
      expect(track.fps).toBe(25);
      expect(track.frames).toHaveLength(ref.length);
      expect(audioPath).toBe(driverPath);
      const corr = (key: 'roll' | 'mouth') => {
        const a = track.frames.map((f) => f[key]), b = ref.map((f) => f[key]);
        const ma = a.reduce((s, x) => s + x, 0) / a.length, mb = b.reduce((s, x) => s + x, 0) / b.length;
        let c = 0, va = 0, vb = 0;
        a.forEach((x, i) => { c += (x - ma) * (b[i]! - mb); va += (x - ma) ** 2; vb += (b[i]! - mb) ** 2; });
        return c / Math.sqrt(va * vb);
      };
      expect(corr('roll')).toBeGreaterThan(0.7);
      expect(corr('mouth')).toBeGreaterThan(0.7);
    }, 60_000);

    it('renders with the driver duration, fps and sound', async () => {
      const req = request({ name: 'video-driven', mute: false, driver: { kind: 'video', path: driverPath } });
      const result = await backend.run('animation.render', req);
      const facts = videoFacts(req.outputPath);
      expect(facts.decodeErrors).toBe('');
      expect(result.metadata.num_frames).toBe(SECONDS * 25);
      expect(facts.frames).toBe(SECONDS * 25);
      expect(result.metadata.video_fps).toBe(25);
      expect(facts.fps).toBe(25);
      expect(facts.durationSec).toBeCloseTo(SECONDS, 1);
      expect(facts.brand).toBe('isom');
      expect(facts.hasAudio).toBe(true);
    }, 120_000);

    it('follows the fps of a driver at another rate, and drops its sound when muted (mov)', async () => {
      const path = join(dir, 'driver-20fps.mp4');
      const r = await runFfmpeg(['-y', '-loglevel', 'error', '-i', driverPath, '-t', '2', '-r', '20', '-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac', path]);
      expect(r.code, r.stderr).toBe(0);
      const req = request({ name: 'video-driven-muted', resultFormat: 'mov', mute: true, driver: { kind: 'video', path } });
      const result = await backend.run('animation.render', req);
      const facts = videoFacts(req.outputPath);
      expect(facts.decodeErrors).toBe('');
      expect(facts.brand).toBe('qt  ');
      expect(result.metadata.video_fps).toBe(20);
      expect(result.metadata.num_frames).toBe(40);
      expect(facts.frames).toBe(40);
      expect(facts.fps).toBe(20);
      expect(facts.durationSec).toBeCloseTo(2, 1);
      expect(facts.hasAudio).toBe(false);
    }, 120_000);

    it('encodes a 29.97 fps driver at its own rate and reports video_fps as the whole number the record holds', async () => {
      const path = join(dir, 'driver-ntsc.mp4');
      const r = await runFfmpeg(['-y', '-loglevel', 'error', '-i', driverPath, '-t', '1', '-r', '30000/1001', '-c:v', 'libx264', '-preset', 'veryfast', '-an', path]);
      expect(r.code, r.stderr).toBe(0);
      const req = request({ name: 'video-driven-ntsc', driver: { kind: 'video', path } });
      const result = await backend.run('animation.render', req);
      const facts = videoFacts(req.outputPath);
      expect(result.metadata.video_fps).toBe(30);
      expect(facts.fps).toBeCloseTo(29.97, 2);
      expect(result.metadata.num_frames).toBe(facts.frames);
    }, 120_000);

    it('fails with DriverError when the driver video shows no face', async () => {
      const path = join(dir, 'testsrc.mp4');
      const r = await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1', '-pix_fmt', 'yuv420p', path]);
      expect(r.code, r.stderr).toBe(0);
      const err = await renderError(backend.run('animation.render', request({ name: 'noface-driver', driver: { kind: 'video', path } })));
      expect(err.kind).toBe('DriverError');
    }, 60_000);
  });
});
