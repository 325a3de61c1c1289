import type { ComputeBackend } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { renderSpeaking } from '../speaking/render.ts';
import type { ClipDeps } from './deps.ts';
import { CLIP_JOB } from './deps.ts';
import { readClip } from './kind.ts';

export interface RenderDeps extends ClipDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
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
