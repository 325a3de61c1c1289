import { mkdir, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { inputFile } from '../resources/input-file.ts';
import { RenderError } from '../errors.ts';
import type { BackgroundInput, ComputeBackend, LogoInput, RenderMetadata, ResultFormat } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import { alphaWebmOutputs, joinAlphaParts, resultCodecs, runFfmpeg } from '../compute/local/ffmpeg.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { INPUT_ROLES, InputRejected, inspectImage, maxBytesOf } from '../animations/checks.ts';
import type { ClipDeps } from './deps.ts';
import { CLIP_JOB } from './deps.ts';
import { readClip, type Clip, type ClipResult } from './kind.ts';
import { deliverVideo, progressRecorder } from '../resources/render-output.ts';
import { ClipFailure, obtainSpeech } from './speech.ts';

export interface RenderDeps extends ClipDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
}

/** An image input of the clip (https or the storage scheme), fetched into `workDir` and held to the image rules. */
async function fetchImage(deps: RenderDeps, clip: Clip, workDir: string, role: 'logo' | 'background', url: string): Promise<string> {
  const { what, failKind } = INPUT_ROLES[role];
  const path = await inputFile(deps, {
    url, userId: clip.userId, workDir, fileName: `${role}-download${extname(new URL(url).pathname)}`,
    maxBytes: maxBytesOf(role, deps.config), accept: (t) => t === '' || /^image\/|^application\/octet-stream/i.test(t),
    missing: () => new RenderError(failKind, `The ${what} no longer exists in your media store`),
    tooLarge: (err) => new RenderError(failKind, `Could not load the ${what}: ${err.message}`),
    failed: (message) => new RenderError(failKind, `Could not load the ${what}: ${message}`),
  });
  try {
    await inspectImage(role, path, deps.config);
  } catch (err) {
    if (err instanceof InputRejected) throw err.toRenderError();
    throw err;
  }
  return path;
}

async function obtainLogo(deps: RenderDeps, clip: Clip, workDir: string): Promise<LogoInput> {
  const logo = clip.req.config?.logo;
  if (logo === false) return { kind: 'none' };
  if (logo === undefined || logo === true) return { kind: 'default' };
  const path = await fetchImage(deps, clip, workDir, 'logo', logo.url);
  return { kind: 'image', path, position: [logo.position[0]!, logo.position[1]!] };
}

/** `background`: absent (the presenter's own picture), a colour, no background, or an image fetched here. */
async function obtainBackground(deps: RenderDeps, clip: Clip, workDir: string): Promise<BackgroundInput | undefined> {
  const bg = clip.req.background;
  if (bg?.color === false) return { kind: 'transparent' };
  if (typeof bg?.color === 'string') return { kind: 'color', color: bg.color };
  if (bg?.source_url === undefined) return undefined;
  return { kind: 'image', path: await fetchImage(deps, clip, workDir, 'background', bg.source_url) };
}

/** `config.output_resolution`: the larger side of the result, aspect kept (even sides for the codec), alpha kept. */
async function resize(file: string, format: ResultFormat, alpha: boolean, side: number, metadata: RenderMetadata): Promise<RenderMetadata> {
  const [w, h] = metadata.resolution.map(Number) as [number, number];
  const scale = side / Math.max(w, h);
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  const [nw, nh] = [even(w), even(h)];
  if (nw === w && nh === h) return metadata;
  const out = `${file}.scaled.${format}`;
  const scaling = `scale=${nw}:${nh}`;
  let args: string[];
  if (format === 'webm' && alpha) {
    // ffmpeg's own VP9 decoder drops the alpha plane: libvpx reads it; the alpha is written as for a render (ffmpeg.ts).
    const webm = alphaWebmOutputs('[s]', out, ['-map', '0:a?', '-c:a', 'copy']);
    args = ['-y', '-v', 'error', '-c:v', 'libvpx-vp9', '-i', file, '-filter_complex', `[0:v]${scaling},format=rgba[s];${webm.filter}`, ...webm.args];
  } else {
    const flags = format === 'webm' ? [] : ['-movflags', '+faststart'];
    args = ['-y', '-v', 'error', '-i', file, '-vf', scaling, ...resultCodecs(format, alpha).video, '-c:a', 'copy', ...flags, out];
  }
  const { code, stderr } = await runFfmpeg(args, { timeoutMs: 10 * 60_000 });
  if (code !== 0) throw new Error(`resizing the clip failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  if (format === 'webm' && alpha) await joinAlphaParts(out);
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
  const format: ResultFormat = clip.req.config?.result_format ?? 'mp4';
  const transparent = clip.req.background?.color === false;
  const outputPath = join(workDir, `result.${format}`);
  let parked = false;
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, clip.id, () => deps.log.warn('progress not recorded', { clip_id: clip.id }));
  try {
    const step = await renderStep(deps.backend, {
      jobId: job.id,
      outputPath,
      onProgress,
      prepare: async () => {
        const speech = await obtainSpeech(deps, clip, workDir, ctx.signal);
        const audioKey = `clips/${clip.id}/audio${extname(speech.path)}`;
        await deps.media.putFile(clip.userId, audioKey, speech.path, speech.contentType);
        clip.details = { ...clip.details, audioKey, speechSec: Math.round(speech.seconds * 1000) / 1000 };
        await deps.lifecycle.setDetails(clip.id, clip.details);
        // A retry starts the playlist afresh.
        const previewDir = deps.pending.dir(clip.id);
        await deps.pending.remove(clip.id);
        await mkdir(previewDir, { recursive: true });
        return {
          previewDir,
          jobId: job.id,
          taskKind: CLIP_JOB,
          sourcePath: presenter.imagePath,
          driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: clip.id },
          logo: await obtainLogo(deps, clip, workDir),
          ...await obtainBackground(deps, clip, workDir).then((background) => (background ? { background } : {})),
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
    if (side !== undefined) metadata = await resize(outputPath, format, transparent, Math.round(side), metadata);
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
