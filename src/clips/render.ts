import { mkdir, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { inputFile } from '../resources/input-file.ts';
import { RenderError } from '../errors.ts';
import type { ComputeBackend, LogoInput, RenderMetadata } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import { runFfmpeg } from '../compute/local/ffmpeg.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { InputRejected, inspectImage, maxBytesOf } from '../animations/checks.ts';
import type { ClipDeps } from './deps.ts';
import { CLIP_JOB } from './deps.ts';
import { readClip, type Clip, type ClipResult } from './kind.ts';
import { deliverVideo, progressRecorder } from '../resources/render-output.ts';
import { ClipFailure, prepareSpeech } from './speech.ts';

export interface RenderDeps extends ClipDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
}

/** The logo of a clip or a talk (`config.logo`): the default, none, or the given image, checked. */
export async function obtainLogo(deps: Pick<RenderDeps, 'client' | 'media' | 'config'>, clip: { userId: string; req: Pick<Clip['req'], 'config'> }, workDir: string): Promise<LogoInput> {
  const logo = clip.req.config?.logo;
  if (logo === false) return { kind: 'none' };
  if (logo === undefined || logo === true) return { kind: 'default' };
  const path = await inputFile(deps, {
    url: logo.url, userId: clip.userId, workDir, fileName: `logo-download${extname(new URL(logo.url).pathname)}`,
    maxBytes: maxBytesOf('logo', deps.config), accept: (t) => t === '' || /^image\/|^application\/octet-stream/i.test(t),
    missing: () => new RenderError('LogoError', 'The logo no longer exists in your media store'),
    tooLarge: (err) => new RenderError('LogoError', `Could not load the logo: ${err.message}`),
    failed: (message) => new RenderError('LogoError', `Could not load the logo: ${message}`),
  });
  try {
    await inspectImage('logo', path, deps.config);
  } catch (err) {
    if (err instanceof InputRejected) throw err.toRenderError();
    throw err;
  }
  return { kind: 'image', path, position: [logo.position[0]!, logo.position[1]!] };
}

/** `config.output_resolution`: the larger side of the result, aspect kept (even sides for the codec). */
export async function resize(file: string, format: 'mp4' | 'mov', side: number, metadata: RenderMetadata): Promise<RenderMetadata> {
  const [w, h] = metadata.resolution.map(Number) as [number, number];
  const scale = side / Math.max(w, h);
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  const [nw, nh] = [even(w), even(h)];
  if (nw === w && nh === h) return metadata;
  const out = `${file}.scaled.${format}`;
  const { code, stderr } = await runFfmpeg(['-y', '-v', 'error', '-i', file, '-vf', `scale=${nw}:${nh}`, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'copy', '-movflags', '+faststart', out], { timeoutMs: 10 * 60_000 });
  if (code !== 0) throw new Error(`resizing the clip failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  await rename(out, file);
  return { ...metadata, resolution: [String(nw), String(nh)] };
}

/** The job handler of `clip.render`: speech, then the presenter speaking it, then the stored result. */
export async function renderClip(deps: RenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const started = await deps.lifecycle.start(job.resourceId);
  if (!started) return;
  const clip = readClip(started);
  const presenter = await deps.presenters.find(clip.userId, clip.details.presenterId);
  if (!presenter) {
    await deps.lifecycle.fail(clip.id, 'PresenterError', 'The presenter no longer exists');
    return;
  }
  const workDir = join(deps.config.dataDir, 'work', `${clip.id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  const format = clip.req.config?.result_format === 'mov' ? 'mov' : 'mp4';
  const outputPath = join(workDir, `result.${format}`);
  let parked = false;
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, clip.id, () => deps.log.warn('progress not recorded', { clip_id: clip.id }));
  try {
    const step = await renderStep(deps.backend, {
      jobId: job.id,
      outputPath,
      onProgress,
      prepare: async () => {
        const { speech, previewDir } = await prepareSpeech(deps, clip, 'clips', workDir, ctx.signal);
        return {
          previewDir,
          jobId: job.id,
          taskKind: CLIP_JOB,
          sourcePath: presenter.imagePath,
          driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: clip.id },
          logo: await obtainLogo(deps, clip, workDir),
          resultFormat: format,
          mute: false,
          stitch: false,
          maxAnimatedFaces: 1,
          outputPath,
          workDir,
          signal: ctx.signal,
          onProgress,
        };
      },
    });
    if ('wait' in step) {
      parked = true;
      return step;
    }
    // A parked job's later run reads what its first run stored.
    const details = readClip((await deps.lifecycle.getById(clip.id)) ?? started).details;
    let metadata = step.result.metadata;
    const side = clip.req.config?.output_resolution;
    if (side !== undefined) metadata = await resize(outputPath, format, Math.round(side), metadata);
    const delivered = await deliverVideo(deps, { userId: clip.userId, target: clip.req.result_url, defaultKey: `clips/${clip.id}/result.${format}`, file: outputPath, format });
    const result: ClipResult = {
      ...delivered,
      audioKey: details.audioKey!,
      durationSec: Math.round((metadata.num_frames / metadata.video_fps) * 1000) / 1000,
      speechSec: details.speechSec ?? 0,
      metadata,
    };
    await deps.lifecycle.finish(clip.id, result);
  } catch (err) {
    if (err instanceof RenderError || err instanceof ClipFailure) {
      deps.log.info('clip failed', { clip_id: clip.id, kind: err.kind });
      await deps.lifecycle.fail(clip.id, err.kind, err.description);
      return;
    }
    throw err;
  } finally {
    if (!parked) await rm(workDir, { recursive: true, force: true });
  }
}
