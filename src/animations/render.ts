import { join } from 'node:path';
import { RenderError } from '../errors.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import type { AnimationDeps } from './deps.ts';
import { readAnimation, type Animation, type AnimationResult } from './kind.ts';
import { obtainInputs } from './inputs.ts';
import { resultFormatOf } from '../media/checks.ts';
import { progressRecorder } from '../resources/render-output.ts';
import { deliverVideo } from '../media/deliver.ts';

export interface RenderDeps extends AnimationDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
}

/** The job handler of `animation.render`. */
export async function renderAnimation(deps: RenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  // Only an unfinished record starts; a finished or deleted one ends the job here.
  const started = await deps.lifecycle.start(job.resourceId);
  if (!started) return;
  const row = readAnimation(started);
  const { req } = row;

  // One folder per job: a job parked on a remote render finds its inputs and result here on its next run.
  const workDir = join(deps.config.dataDir, 'work', `${row.id}-${job.id}`);
  const format = resultFormatOf(req);
  const outputPath = join(workDir, `result.${format}`);
  const onProgress = progressRecorder(deps.lifecycle, deps.clock, row.id, () => deps.log.warn('progress not recorded', { animation_id: row.id }));
  try {
    return await renderStep(deps.backend, 'animation.render', {
      jobId: job.id,
      workDir,
      outputPath,
      onProgress,
      prepare: async () => ({
        jobId: job.id,
        ...(await obtainInputs(deps, row, req, workDir)),
        ...(req.face ? { face: { size: req.face.size, top_left: [req.face.top_left[0]!, req.face.top_left[1]!] } } : {}),
        resultFormat: format,
        mute: req.config?.mute ?? true,
        stitch: req.config?.stitch ?? false,
        maxAnimatedFaces: Math.floor(req.config?.max_animated_faces ?? 5),
        outputPath,
        workDir,
        signal: ctx.signal,
        onProgress,
      }),
      deliver: async (result) => {
        const delivered = await deliverVideo(deps, { userId: row.userId, target: req.result_url, defaultKey: `animations/${row.id}/result.${format}`, file: outputPath, format });
        // Conditional: a record deleted (or ended) meanwhile stays as it is; the webhook is queued with the update.
        await deps.lifecycle.finish(row.id, { ...delivered, metadata: result.metadata, faceIds: result.faceIds } satisfies AnimationResult);
      },
    });
  } catch (err) {
    if (err instanceof RenderError) {
      deps.log.info('animation failed', { animation_id: row.id, kind: err.kind });
      // The record says why, the credit comes back, the webhook goes out, in one conditional update.
      await deps.lifecycle.fail(row.id, err.kind, err.description);
      return;
    }
    throw err;
  }
}


