import { mkdir, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { RenderError } from '../errors.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { inputFile } from '../resources/input-file.ts';
import { deliverVideo, progressRecorder } from '../resources/render-output.ts';
import { InputRejected, downloadTooLarge, inspectImage, maxBytesOf, resultFormatOf } from '../animations/checks.ts';
import { ClipFailure, prepareSpeech } from '../clips/speech.ts';
import { obtainLogo, resize } from '../clips/render.ts';
import type { ClipResult } from '../clips/kind.ts';
import { TALK_JOB, readTalk, type Talk, type TalkDeps } from './kind.ts';

export interface TalkRenderDeps extends TalkDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
}

/**
 * The photo as a local file: the owner's stored object, or a download held to the source
 * image's size limit; then the animations' source rules (decodes, resolution). A broken rule
 * is the record's error with its kind; a photo the renderer finds no face on is its FaceError.
 */
async function obtainPhoto(deps: TalkRenderDeps, talk: Talk, workDir: string): Promise<string> {
  const url = talk.req.source_url;
  const path = await inputFile(deps, {
    url, userId: talk.userId, workDir, fileName: `source-download${extname(new URL(url).pathname)}`,
    maxBytes: maxBytesOf('source', deps.config), accept: (t) => t === '' || /^image\/|^application\/octet-stream/i.test(t),
    missing: () => new RenderError('SourceError', 'The photo no longer exists in your media store'),
    tooLarge: () => downloadTooLarge('source', deps.config),
    failed: (message) => new RenderError('SourceError', `Could not load the photo: ${message}`),
  });
  await inspectImage('source', path, deps.config);
  return path;
}

/** The job handler of `talk.render`: the photo, the speech, then the photo speaking it, then the stored result. */
export async function renderTalk(deps: TalkRenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const started = await deps.lifecycle.start(job.resourceId);
  if (!started) return;
  const talk = readTalk(started);
  const workDir = join(deps.config.dataDir, 'work', `${talk.id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  const format = resultFormatOf(talk.req);
  const outputPath = join(workDir, `result.${format}`);
  let parked = false;
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, talk.id, () => deps.log.warn('progress not recorded', { talk_id: talk.id }));
  try {
    const step = await renderStep(deps.backend, {
      jobId: job.id,
      outputPath,
      onProgress,
      prepare: async () => {
        const sourcePath = await obtainPhoto(deps, talk, workDir);
        const { speech, previewDir } = await prepareSpeech(deps, talk, 'talks', workDir, ctx.signal, talk.req.config?.pad_audio ?? 0);
        return {
          previewDir, jobId: job.id, taskKind: TALK_JOB, sourcePath,
          driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: talk.id },
          logo: await obtainLogo(deps, talk, workDir),
          resultFormat: format, mute: false, stitch: talk.req.config?.stitch ?? false, maxAnimatedFaces: 1,
          outputPath, workDir, signal: ctx.signal, onProgress,
        };
      },
    });
    if ('wait' in step) {
      parked = true;
      return step;
    }
    // A parked job's later run reads what its first run stored.
    const details = readTalk((await deps.lifecycle.getById(talk.id)) ?? started).details;
    let metadata = step.result.metadata;
    const side = talk.req.config?.output_resolution;
    if (side !== undefined) metadata = await resize(outputPath, format, Math.round(side), metadata);
    const delivered = await deliverVideo(deps, { userId: talk.userId, target: talk.req.result_url, defaultKey: `talks/${talk.id}/result.${format}`, file: outputPath, format });
    const result: ClipResult = {
      ...delivered,
      audioKey: details.audioKey!,
      durationSec: Math.round((metadata.num_frames / metadata.video_fps) * 1000) / 1000,
      speechSec: details.speechSec ?? 0,
      metadata,
    };
    await deps.lifecycle.finish(talk.id, result);
  } catch (err) {
    const failure = err instanceof InputRejected ? err.toRenderError() : err;
    if (failure instanceof RenderError || failure instanceof ClipFailure) {
      deps.log.info('talk failed', { talk_id: talk.id, kind: failure.kind });
      await deps.lifecycle.fail(talk.id, failure.kind, failure.description);
      return;
    }
    throw err;
  } finally {
    if (!parked) await rm(workDir, { recursive: true, force: true });
  }
}
