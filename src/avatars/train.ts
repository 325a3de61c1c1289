import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { RenderError } from '../errors.ts';
import { presenterKeys, scaled } from '../presenters/contract.ts';
import { PREVIEW_JOB } from '../clips/contract.ts';
import { progressRecorder } from '../resources/render-output.ts';
import { CheckFailure, fetchVideo } from '../consents/contract.ts';
import { checkFootage } from './checks.ts';
import { readAvatar, type AvatarDetails, type AvatarResult, type FootageCheckStep } from './kind.ts';
import type { AvatarDeps } from './deps.ts';
import { avatarVoice } from './voice.ts';

/** Media keys of a trained presenter (owner: the user): its picture, stills, talking preview and idle loop. */
export const avatarKeys = (presenterId: string): AvatarResult['keys'] => ({ ...presenterKeys(presenterId, 'png'), idle: `presenters/${presenterId}/idle.mp4` });

/**
 * The job handler of `avatar.create`: the footage checks (status `validating`), then training
 * (`started`), a compute task of kind `avatar.train` so a GPU worker can do it, then the
 * presenter: its picture and stills, its idle loop, its voice; its talking preview is queued.
 */
export async function createAvatarJob(deps: AvatarDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const row = await deps.lifecycle.getById(job.resourceId);
  if (!row || row.finishedAt !== null) return;
  const avatar = readAvatar(row);
  if (avatar.details.review?.state === 'pending') return;
  const id = row.id;
  const userId = row.userId;
  const details: AvatarDetails = { ...avatar.details };
  const workDir = join(deps.config.dataDir, 'work', `${id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  try {
    const video = await fetchVideo(deps, { url: avatar.req.source_url, userId, workDir, maxBytes: deps.settings.maxFootageBytes, what: 'avatar footage', kind: 'FootageError' });

    if (!details.checked) {
      if (row.status === 'created') await deps.lifecycle.moveTo(id, 'validating');
      details.checks = [];
      const record = async (step: FootageCheckStep) => {
        details.checks.push(step);
        await deps.lifecycle.setDetails(id, details);
      };
      const outcome = await checkFootage(deps, { userId, details }, video, workDir, ctx.signal, record, deps.settings.maxFootageSec);
      details.windows = outcome.windows;
      if (outcome.review) {
        details.review = { state: 'pending', reason: outcome.review };
        await deps.lifecycle.setDetails(id, details);
        deps.log.info('avatar waits for a review', { avatar_id: id });
        return;
      }
      details.checked = true;
      await deps.lifecycle.setDetails(id, details);
    }

    if (!(await deps.lifecycle.start(id))) return;
    const outputDir = join(workDir, 'trained');
    await mkdir(outputDir, { recursive: true });
    const windows = details.windows!;
    const trained = await deps.backend.run('avatar.train', {
      jobId: job.id, footagePath: video, idle: windows.idle, speech: windows.speech, outputDir, workDir, signal: ctx.signal,
      onProgress: progressRecorder(deps.lifecycle, deps.clock, id, () => deps.log.warn('progress not recorded', { avatar_id: id })),
    });

    const keys = avatarKeys(details.presenterId);
    const reference = join(outputDir, 'reference.png');
    await deps.media.putFile(userId, keys.image, reference, 'image/png');
    await deps.media.putFile(userId, keys.thumbnail, await scaled(reference, 128, workDir, 'thumbnail.png'), 'image/png');
    await deps.media.putFile(userId, keys.preview, await scaled(reference, 256, workDir, 'preview.png'), 'image/png');
    await deps.media.putFile(userId, keys.idle, join(outputDir, 'idle.mp4'), 'video/mp4');
    const voice = await avatarVoice(deps, {
      name: avatar.req.name, language: details.language, gender: avatar.req.gender, pitchHz: trained.pitchHz,
      footagePath: video, speech: windows.speech, workDir, signal: ctx.signal,
    });
    const result: AvatarResult = {
      name: avatar.req.name, voice, referenceSec: trained.referenceSec, loopSec: trained.loopSec, size: trained.size, keys, trainedAt: deps.clock.now(),
    };
    // The talking preview is rendered by the clips module's preview job, as for the built-in
    // presenters; it is queued with the ending, so a done avatar always has one coming.
    const preview = { kind: PREVIEW_JOB, resourceId: details.presenterId, maxAttempts: 3 };
    if (!(await deps.lifecycle.finish(id, result, 'done', preview))) await deps.media.removePrefix(userId, `presenters/${details.presenterId}/`);
  } catch (err) {
    if (err instanceof CheckFailure || err instanceof RenderError) {
      deps.log.info('avatar failed', { avatar_id: id, kind: err instanceof CheckFailure ? err.kind : err.kind });
      await deps.lifecycle.fail(id, err.kind, err.description);
      return;
    }
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
