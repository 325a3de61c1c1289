import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RenderError } from '../errors.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { CreateAnimationBody } from '../schemas/animations.ts';
import type { Logger } from '../log.ts';
import { ANIMATION_COST, type AnimationDeps } from './deps.ts';
import { getAnimationById, refundCredits, updateAnimation, type AnimationRow } from './store.ts';
import { obtainInputs } from './inputs.ts';
import { resultFormatOf } from './checks.ts';

export interface RenderDeps extends AnimationDeps {
  backend: ComputeBackend;
  client: GuardedClient;
  log: Logger;
  /** Called inside the transaction that ends an animation (done or error): queues its webhook. */
  onFinished: (row: AnimationRow) => void;
}

const VIDEO_CONTENT_TYPE = { mp4: 'video/mp4', mov: 'video/quicktime' } as const;

/** Puts the finished video where the request asked: an https upload URL, a storage key, or the default key. */
async function deliverResult(deps: RenderDeps, row: AnimationRow, req: CreateAnimationBody, file: string, format: 'mp4' | 'mov') {
  const contentType = VIDEO_CONTENT_TYPE[format];
  const target = req.result_url;
  if (target?.startsWith('https://')) {
    await deps.client.upload(target, file, { contentType, timeoutMs: deps.config.fetch.timeoutMs });
    return { resultExternalUrl: target, resultKey: null };
  }
  const key = target ? deps.media.keyOfStorageUrl(target)! : `animations/${row.id}/result.${format}`;
  await deps.media.putFile(row.userId, key, file, contentType);
  return { resultKey: key, resultExternalUrl: null };
}

/** Ends an animation in `error`: the record says why, the credit comes back, the webhook goes out. */
export function finishWithError(deps: Pick<RenderDeps, 'store' | 'clock' | 'onFinished'>, id: string, kind: string, description: string): void {
  deps.store.sqlite.transaction(() => {
    const row = getAnimationById(deps.store, id);
    if (!row || row.status === 'done' || row.status === 'error') return;
    updateAnimation(deps.store, id, {
      status: 'error',
      error: JSON.stringify({ kind, description }),
      modifiedAt: deps.clock.now(),
      progressDone: null,
      progressTotal: null,
    });
    refundCredits(deps.store, row.userId, ANIMATION_COST);
    deps.onFinished(getAnimationById(deps.store, id)!);
  })();
}

/** The job handler of `animation.render`. */
export async function renderAnimation(deps: RenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const row = getAnimationById(deps.store, job.resourceId);
  if (!row || row.status === 'done' || row.status === 'error') return;
  const req = JSON.parse(row.request) as CreateAnimationBody;
  const now = deps.clock.now();
  updateAnimation(deps.store, row.id, { status: 'started', startedAt: row.startedAt ?? now, modifiedAt: now });

  // One folder per job: a job parked on a remote render finds its inputs and result here on its next run.
  const workDir = join(deps.config.dataDir, 'work', `${row.id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  let lastProgress = 0;
  let parked = false;
  try {
    const format = resultFormatOf(req);
    const outputPath = join(workDir, `result.${format}`);
    const onProgress = (done: number, total: number) => {
      const t = deps.clock.now();
      if (t - lastProgress < 500 && done < total) return;
      lastProgress = t;
      updateAnimation(deps.store, row.id, { progressDone: done, progressTotal: total, modifiedAt: t });
    };
    const step = await renderStep(deps.backend, {
      jobId: job.id,
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
    });
    if ('wait' in step) {
      parked = true;
      return step;
    }
    const { result } = step;
    const delivered = await deliverResult(deps, row, req, outputPath, format);
    deps.store.sqlite.transaction(() => {
      const current = getAnimationById(deps.store, row.id);
      if (!current) return; // deleted while rendering
      updateAnimation(deps.store, row.id, {
        status: 'done',
        ...delivered,
        metadata: JSON.stringify(result.metadata),
        faceIds: JSON.stringify(result.faceIds),
        progressDone: null,
        progressTotal: null,
        modifiedAt: deps.clock.now(),
      });
      deps.onFinished(getAnimationById(deps.store, row.id)!);
    })();
  } catch (err) {
    if (err instanceof RenderError) {
      deps.log.info('animation failed', { animation_id: row.id, kind: err.kind });
      finishWithError(deps, row.id, err.kind, err.description);
      return;
    }
    throw err;
  } finally {
    if (!parked) await rm(workDir, { recursive: true, force: true });
  }
}


