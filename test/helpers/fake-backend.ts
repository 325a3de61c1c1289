import { spawn } from 'node:child_process';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { join } from 'node:path';
import sharp from 'sharp';
import type { ComputeBackend, RenderRequest, RenderResult, TrainRequest, TrainResult } from '../../src/compute/interface.ts';
import { resize } from '../../src/compute/local/resize.ts';
import type { RunnableKind } from '../../src/compute/tasks/index.ts';
import { RenderError } from '../../src/errors.ts';

/**
 * A test double of the compute backend: writes a real (tiny) test-pattern video quickly, so
 * API and lifecycle tests do not pay for face rendering. The real renderer is tested in
 * test/compute and end to end in test/e2e.
 */
export function createFakeBackend(opts: {
  delayMs?: number;
  failWith?: RenderError;
  fault?: Error;
  /**
   * A square picture of a face: training writes it as reference.png (and a still idle.mp4 of
   * it), so a real renderer can animate the presenter. Absent: a 64x64 test pattern.
   */
  trainPicture?: string;
} = {}): ComputeBackend & {
  calls: RenderRequest[];
  trainCalls: TrainRequest[];
  /** The task kind of every render, in the order of `calls`. */
  kinds: RunnableKind[];
} {
  const calls: RenderRequest[] = [];
  const trainCalls: TrainRequest[] = [];
  const kinds: RunnableKind[] = [];
  /** A 64x64 reference.png and a 0.4 s idle.mp4 test pattern (or `trainPicture` and a still of it); a pitch of 120 Hz. */
  async function train(req: TrainRequest): Promise<TrainResult> {
      trainCalls.push(req);
      if (opts.failWith) throw opts.failWith;
      if (opts.fault) throw opts.fault;
      const reference = join(req.outputDir, 'reference.png');
      const picture = opts.trainPicture ? sharp(opts.trainPicture) : sharp({ create: { width: 64, height: 64, channels: 3, background: '#806040' } });
      const { width: size } = await picture.png().toFile(reference);
      const idle = opts.trainPicture ? ['-loop', '1', '-framerate', '25', '-t', '0.4', '-i', reference] : ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=25:duration=0.4'];
      await new Promise<void>((resolve, reject) => {
        const p = spawn(ffmpeg.path, ['-y', '-v', 'error', ...idle, '-pix_fmt', 'yuv420p', '-f', 'mp4', join(req.outputDir, 'idle.mp4')]);
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
      });
      req.onProgress?.(1, 1);
      return { referenceSec: req.idle.fromSec, loopSec: 0.4, size, pitchHz: 120 };
  }
  /** A 64x64 0.4 s test pattern in the asked format, scaled to `outputResolution` as a real backend scales it. */
  async function render(req: RenderRequest): Promise<RenderResult> {
      calls.push(req);
      if (opts.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, opts.delayMs);
          req.signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(req.signal.reason ?? new Error('aborted'));
          });
        });
      }
      if (opts.failWith) throw opts.failWith;
      if (opts.fault) throw opts.fault;
      await new Promise<void>((resolve, reject) => {
        const p = spawn(ffmpeg.path, ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=25:duration=0.4', '-pix_fmt', 'yuv420p', '-f', req.resultFormat, req.outputPath]);
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
      });
      req.onProgress?.(10, 10);
      const metadata: RenderResult['metadata'] = { num_frames: 10, processing_fps: 100, resolution: ['64', '64'], size_kib: 1, source_pose: [0, 0, 0], video_fps: 25, faces: [] };
      return {
        metadata: req.outputResolution === undefined ? metadata : await resize(req.outputPath, req.resultFormat, req.background?.kind === 'transparent', req.outputResolution, metadata),
        faceIds: [0],
      };
  }
  const handlers: Record<RunnableKind, (req: never) => Promise<unknown>> = {
    'animation.render': render,
    'clip.render': render,
    'talk.render': render,
    'avatar.train': train,
  };
  return {
    name: 'fake',
    calls,
    trainCalls,
    kinds,
    run: (kind, req) => {
      if (handlers[kind] === render) kinds.push(kind);
      return handlers[kind](req as never) as never;
    },
    async close() {},
  };
}
