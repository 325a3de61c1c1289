import { extname, join } from 'node:path';
import { inputFile } from '../media/input-file.ts';
import { RenderError } from '../errors.ts';
import type { BackgroundInput, ComputeBackend, LogoInput, ResultFormat } from '../compute/interface.ts';
import type { RenderTaskKind } from '../compute/tasks/index.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { Logger } from '../log.ts';
import { INPUT_ROLES, InputRejected, inspectImage, maxBytesOf } from '../media/checks.ts';
import type { Clock } from '../clock.ts';
import type { SpeakingResult } from './records.ts';
import type { SpeakingRequest } from './script.ts';
import { progressRecorder } from '../resources/render-output.ts';
import { deliverVideo } from '../media/deliver.ts';
import { SpeakingFailure, prepareSpeech, type SpeechDeps, type Speaker } from './speech.ts';
import type { Lifecycle } from '../resources/lifecycle.ts';
import type { PendingVideos } from './pending.ts';

/** The fields of a clip's or a talk's request the render reads besides the script. */
type Owned = { userId: string; req: Omit<SpeakingRequest, 'script'> };
type ImageDeps = Pick<SpeechDeps, 'client' | 'media' | 'config'>;

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
export type SpeakingDeps = SpeechDeps & {
  backend: ComputeBackend;
  log: Logger;
  clock: Clock;
  /** The videos being rendered, as HLS playlists (`pending_url`). */
  pending: PendingVideos;
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
  const outputPath = join(workDir, `result.${format}`);
  // pending_url from `started` on: an empty event playlist until the render writes its own (a retry starts afresh).
  await deps.pending.reset(record.id);
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, record.id, () => deps.log.warn('progress not recorded', { [`${spec.label}_id`]: record.id }));
  try {
    return await renderStep(deps.backend, spec.taskKind, {
      jobId: job.id,
      workDir,
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
      deliver: async ({ metadata }) => {
        const details = await spec.storedDetails();
        const delivered = await deliverVideo(deps, { userId: record.userId, target: record.req.result_url, defaultKey: `${spec.folder}/${record.id}/result.${format}`, file: outputPath, format });
        const result: SpeakingResult = {
          ...delivered,
          audioKey: details.audioKey!,
          durationSec: Math.round((metadata.num_frames / metadata.video_fps) * 1000) / 1000,
          speechSec: details.speechSec ?? 0,
          metadata,
        };
        await deps.lifecycle.finish(record.id, result);
      },
    });
  } catch (err) {
    const failure = err instanceof InputRejected ? err.toRenderError() : err;
    if (failure instanceof RenderError || failure instanceof SpeakingFailure) {
      deps.log.info(`${spec.label} failed`, { [`${spec.label}_id`]: record.id, kind: failure.kind });
      await deps.lifecycle.fail(record.id, failure.kind, failure.description);
      return;
    }
    throw err;
  }
}
