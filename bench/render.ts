/**
 * Benchmark of the local CPU backend: renders a bank animation at 512x512 from the sample
 * portrait a few times and prints frames per second. Never fails on timing.
 *
 *   npx tsx bench/render.ts [runs] [category/driver] [source]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalBackend } from '../src/compute/local/index.ts';
import { median } from './stats.ts';

const runs = Number(process.argv[2] ?? 5);
const [category = 'nostalgia', name = 'driver-01'] = (process.argv[3] ?? 'nostalgia/driver-01').split('/');
const source = process.argv[4] ?? fileURLToPath(new URL('../assets/sample-source.png', import.meta.url));
const VIDEO_FPS = 25;


async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mimic-bench-'));
  const backend = createLocalBackend();
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}`);
  console.log(`driver: bank://${category}/${name}, source: ${source}, ${runs} runs after a cold run\n`);
  try {
    const once = async (i: number) => {
      const started = performance.now();
      const r = await backend.run('animation.render', {
        jobId: `bench-${i}`, sourcePath: source, driver: { kind: 'bank', category, name },
        resultFormat: 'mp4', mute: true, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'none' },
        outputPath: join(dir, `bench-${i}.mp4`), workDir: dir, signal: new AbortController().signal,
      });
      const wall = (performance.now() - started) / 1000;
      return { frames: r.metadata.num_frames, wall, res: r.metadata.resolution.join('x') };
    };
    // The first render starts the render process and loads the face models.
    const cold = await once(0);
    console.log(`cold (process start + model load included): ${cold.frames} frames ${cold.res} in ${cold.wall.toFixed(2)} s = ${(cold.frames / cold.wall).toFixed(1)} fps`);
    const fps: number[] = [];
    for (let i = 1; i <= runs; i++) {
      const warm = await once(i);
      fps.push(warm.frames / warm.wall);
      console.log(`warm run ${i}: ${warm.frames} frames in ${warm.wall.toFixed(2)} s = ${fps.at(-1)!.toFixed(1)} fps`);
    }
    const med = median(fps);
    console.log(`\nmedian (models loaded): ${med.toFixed(1)} fps end to end, real-time factor ${(med / VIDEO_FPS).toFixed(2)}x`);
    console.log(`cold run: ${(cold.frames / cold.wall).toFixed(1)} fps, real-time factor ${(cold.frames / cold.wall / VIDEO_FPS).toFixed(2)}x`);
  } finally {
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exitCode = 1;
});
