/**
 * Benchmark of full animations on the local CPU backend, side by side in one run:
 *   1. a 10 s driver video (a person) animating the sample portrait at 512x512;
 *   2. a stitched 1920x1080 picture driven by the same video;
 * each printed as frames per second and real-time factor (video seconds per wall second),
 * medians over the runs. Never fails on timing.
 *
 *   npx tsx bench/animations.ts [runs]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { createLocalBackend } from '../src/compute/local/index.ts';
import { runFfmpeg } from '../src/media/ffmpeg.ts';
import { SAMPLE_SOURCE } from '../src/animations/deps.ts';
import type { ComputeBackend, RenderRequest } from '../src/compute/interface.ts';
import { median } from './stats.ts';

const runs = Number(process.argv[2] ?? 3);
const DRIVER_SECONDS = 10;

interface Measured {
  frames: number;
  wall: number;
  videoSeconds: number;
  resolution: string;
}

async function render(backend: ComputeBackend, dir: string, name: string, over: Partial<RenderRequest>): Promise<Measured> {
  const started = performance.now();
  const r = await backend.run('animation.render', {
    jobId: name, sourcePath: SAMPLE_SOURCE, driver: { kind: 'bank', category: 'nostalgia', name: 'driver-01' },
    resultFormat: 'mp4', mute: true, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'default' },
    outputPath: join(dir, `${name}.mp4`), workDir: dir, signal: new AbortController().signal, ...over,
  });
  const wall = (performance.now() - started) / 1000;
  const m = r.metadata;
  return { frames: m.num_frames, wall, videoSeconds: m.num_frames / m.video_fps, resolution: m.resolution.join('x') };
}

/** A 10 s video of a person: a bank animation of the sample portrait, looped to length. */
async function makeDriver(backend: ComputeBackend, dir: string): Promise<string> {
  await render(backend, dir, 'driver-source', { logo: { kind: 'none' } });
  const path = join(dir, 'driver-10s.mp4');
  const r = await runFfmpeg(['-y', '-stream_loop', '-1', '-i', join(dir, 'driver-source.mp4'), '-t', String(DRIVER_SECONDS), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', path]);
  if (r.code !== 0) throw new Error(`could not make the driver: ${r.stderr.slice(-300)}`);
  return path;
}

/** The sample portrait on a 1920x1080 canvas (blurred, stretched copy of itself behind it). */
async function make1080p(dir: string): Promise<string> {
  const path = join(dir, 'source-1080p.png');
  const background = await sharp(SAMPLE_SOURCE).resize(1920, 1080, { fit: 'fill' }).blur(30).toBuffer();
  const portrait = await sharp(SAMPLE_SOURCE).resize(1080, 1080).toBuffer();
  await sharp(background).composite([{ input: portrait, left: 420, top: 0 }]).png().toFile(path);
  return path;
}

async function series(label: string, count: number, once: (i: number) => Promise<Measured>): Promise<void> {
  const fps: number[] = [];
  const rtf: number[] = [];
  let last: Measured | undefined;
  for (let i = 0; i < count; i++) {
    last = await once(i);
    fps.push(last.frames / last.wall);
    rtf.push(last.videoSeconds / last.wall);
    console.log(`  ${label} run ${i + 1}: ${last.frames} frames ${last.resolution} in ${last.wall.toFixed(2)} s`);
  }
  console.log(`${label}: median ${median(fps).toFixed(1)} fps, real-time factor ${median(rtf).toFixed(2)}x (${last!.frames} frames, ${last!.videoSeconds.toFixed(1)} s of video, ${last!.resolution})\n`);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mimic-bench-anim-'));
  const backend = createLocalBackend();
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}; ${runs} runs each, models loaded\n`);
  try {
    const driverPath = await makeDriver(backend, dir);
    const source1080 = await make1080p(dir);
    const driver = { kind: 'video' as const, path: driverPath };
    await series(`driver video ${DRIVER_SECONDS} s, 512x512 crop`, runs, (i) => render(backend, dir, `crop-${i}`, { driver }));
    await series('stitched 1920x1080, same driver', runs, (i) =>
      render(backend, dir, `stitch-${i}`, { driver, sourcePath: source1080, stitch: true, maxAnimatedFaces: 5 }));
    console.log('goal: at least 15 fps for the 512x512 driver-video animation');
  } finally {
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exitCode = 1;
});
