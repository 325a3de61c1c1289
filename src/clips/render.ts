import { mkdir, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { inputFile } from '../resources/input-file.ts';
import { RenderError } from '../errors.ts';
import type { BackgroundInput, ComputeBackend, LogoInput, ResultFormat } from '../compute/interface.ts';
import type { RenderTaskKind } from '../compute/tasks/index.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { INPUT_ROLES, InputRejected, inspectImage, maxBytesOf } from '../animations/checks.ts';
import type { ClipDeps } from './deps.ts';
import { CLIP_JOB } from './deps.ts';
import { readClip, type ClipResult } from './kind.ts';
import { deliverVideo, progressRecorder } from '../resources/render-output.ts';
import { ClipFailure, prepareSpeech, type SpeechDeps, type Speaker } from './speech.ts';
import type { Lifecycle } from '../resources/lifecycle.ts';
import type { PendingVideos } from './pending.ts';
import type { CreateClipBody } from './schemas.ts';

export interface RenderDeps extends ClipDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
}

/** The fields of a clip's or a talk's request the render reads besides the script. */
interface SpeakingRequest {
  config?: { logo?: NonNullable<CreateClipBody['config']>['logo']; output_resolution?: number };
  background?: CreateClipBody['background'];
  result_url?: string;
}
type Owned = { userId: string; req: SpeakingRequest };
type ImageDeps = Pick<RenderDeps, 'client' | 'media' | 'config'>;

/** An image input of a clip or a talk (https or the storage scheme), fetched into `workDir` and held to the image rules. */
export async function fetchImage(deps: ImageDeps, record: { userId: string }, workDir: string, role: 'logo' | 'background' | 'source', url: string): Promise<string> {
  const { what, failKind } = INPUT_ROLES[role];
  const path = await inputFile(deps, {
    url, userId: record.userId, workDir, fileName: `${role}-download${extname(new URL(url).pathname)}`,
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

/** The logo of a clip or a talk (`config.logo`): the default, none, or the given image, checked. */
async function obtainLogo(deps: ImageDeps, record: Owned, workDir: string): Promise<LogoInput> {
  const logo = record.req.config?.logo;
  if (logo === false) return { kind: 'none' };
  if (logo === undefined || logo === true) return { kind: 'default' };
  const path = await fetchImage(deps, record, workDir, 'logo', logo.url);
  return { kind: 'image', path, position: [logo.position[0]!, logo.position[1]!] };
}

/** `background`: absent (the picture's own), a colour, no background, or an image fetched here. */
async function obtainBackground(deps: ImageDeps, record: Owned, workDir: string): Promise<BackgroundInput | undefined> {
  const bg = record.req.background;
  if (bg?.color === false) return { kind: 'transparent' };
  if (typeof bg?.color === 'string') return { kind: 'color', color: bg.color };
  if (bg?.source_url === undefined) return undefined;
  return { kind: 'image', path: await fetchImage(deps, record, workDir, 'background', bg.source_url) };
}

/** What a speaking render needs of its deps: a clip's or a talk's (their lifecycles differ only in the record's view). */
export type SpeakingDeps = SpeechDeps & ImageDeps & Pick<RenderDeps, 'backend' | 'log' | 'clock' | 'pending'> & {
  lifecycle: Pick<Lifecycle<unknown>, 'setDetails' | 'progress' | 'getById' | 'finish' | 'fail'>;
};

/** What differs between a clip's render and a talk's. */
export interface SpeakingJob {
  record: Speaker & Owned & { id: string; details: { audioKey?: string; speechSec?: number } };
  /** The media folder and the log label: `clips` / `clip`, `talks` / `talk`. */
  folder: string;
  label: string;
  taskKind: RenderTaskKind;
  format: ResultFormat;
  stitch: boolean;
  padSec?: number;
  /** The picture that speaks, as a local file (a presenter's picture, or a talk's photo fetched here). */
  source(workDir: string): Promise<string>;
  /** The record's details as stored (a parked job's later run reads what its first run stored). */
  storedDetails(): Promise<{ audioKey?: string; speechSec?: number }>;
}

/**
 * The render of a clip or a talk, after its record is started: the speech, then the picture
 * speaking it (a compute task), then the result resized, delivered and recorded. A failure that
 * lies in the request ends the record in error; anything else is the job engine's to retry.
 */
export async function renderSpeaking(deps: SpeakingDeps, job: Job, ctx: JobContext, spec: SpeakingJob): Promise<JobOutcome> {
  const { record, format } = spec;
  const workDir = join(deps.config.dataDir, 'work', `${record.id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  const outputPath = join(workDir, `result.${format}`);
  // pending_url from `started` on: an empty event playlist until the render writes its own (a retry starts afresh).
  await deps.pending.reset(record.id);
  let parked = false;
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, record.id, () => deps.log.warn('progress not recorded', { [`${spec.label}_id`]: record.id }));
  try {
    const step = await renderStep(deps.backend, spec.taskKind, {
      jobId: job.id,
      outputPath,
      onProgress,
      prepare: async () => {
        const sourcePath = await spec.source(workDir);
        const { speech, previewDir } = await prepareSpeech(deps, record, spec.folder, workDir, ctx.signal, spec.padSec ?? 0);
        const background = await obtainBackground(deps, record, workDir);
        return {
          previewDir,
          jobId: job.id,
          sourcePath,
          driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: record.id },
          logo: await obtainLogo(deps, record, workDir),
          ...(background ? { background } : {}),
          resultFormat: format,
          // `config.output_resolution`: the task scales its own result (the local runner and a remote worker alike).
          ...(record.req.config?.output_resolution !== undefined ? { outputResolution: Math.round(record.req.config.output_resolution) } : {}),
          mute: false,
          stitch: spec.stitch,
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
    const details = await spec.storedDetails();
    const { metadata } = step.result;
    const delivered = await deliverVideo(deps, { userId: record.userId, target: record.req.result_url, defaultKey: `${spec.folder}/${record.id}/result.${format}`, file: outputPath, format });
    const result: ClipResult = {
      ...delivered,
      audioKey: details.audioKey!,
      durationSec: Math.round((metadata.num_frames / metadata.video_fps) * 1000) / 1000,
      speechSec: details.speechSec ?? 0,
      metadata,
    };
    await deps.lifecycle.finish(record.id, result);
  } catch (err) {
    const failure = err instanceof InputRejected ? err.toRenderError() : err;
    if (failure instanceof RenderError || failure instanceof ClipFailure) {
      deps.log.info(`${spec.label} failed`, { [`${spec.label}_id`]: record.id, kind: failure.kind });
      await deps.lifecycle.fail(record.id, failure.kind, failure.description);
      return;
    }
    throw err;
  } finally {
    if (!parked) await rm(workDir, { recursive: true, force: true });
  }
}

/** The job handler of `clip.render`: the presenter's picture speaking the clip's script. */
export async function renderClip(deps: RenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const started = await deps.lifecycle.start(job.resourceId);
  if (!started) return;
  const clip = readClip(started);
  const presenter = await deps.presenters.find(clip.userId, clip.details.presenterId);
  if (!presenter) {
    await deps.lifecycle.fail(clip.id, 'PresenterError', 'The presenter no longer exists');
    return;
  }
  return renderSpeaking(deps, job, ctx, {
    record: clip,
    folder: 'clips',
    label: 'clip',
    taskKind: CLIP_JOB,
    format: clip.req.config?.result_format ?? 'mp4',
    stitch: false,
    source: async () => presenter.imagePath,
    storedDetails: async () => readClip((await deps.lifecycle.getById(clip.id)) ?? started).details,
  });
}
