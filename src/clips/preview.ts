import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { renderStep } from '../compute/run.ts';
import type { PresenterEntry } from '../presenters/contract.ts';
import { CLIP_JOB } from './deps.ts';
import { PREVIEW_JOB } from './contract.ts';
import type { RenderDeps } from './render.ts';
import { providerOf, speakToWav } from '../speaking/speech.ts';

/**
 * The presenters' talking previews (`talking_preview_url`): a short clip of each presenter
 * saying one sentence with its own voice, rendered by mimic itself, once. The clips module
 * queues one `presenter.preview` job per built-in presenter that has none when the service
 * starts, the avatars module one when an avatar's training ends (the job's user is the
 * presenter's owner). The URL is listed from the start: fetching it before the preview is
 * stored waits for the render (`previewMaker`). Removing the stored file (media owner `mimic`,
 * key presenters/<id>/talking-preview.mp4) renders it again at the next start or fetch. The
 * job's kind, `PREVIEW_JOB`, is in contract.ts.
 */

export const previewSentence = (p: PresenterEntry): string => `Hello, I am ${p.name}. Write me a script, and I will say it for you.`;

/** The built-in presenters without a talking preview yet. */
export async function presentersWithoutPreview(deps: Pick<RenderDeps, 'presenters' | 'media'>): Promise<PresenterEntry[]> {
  const stored = await Promise.all(deps.presenters.builtIns.map((p) => deps.media.exists(p.owner, p.keys.talking)));
  return deps.presenters.builtIns.filter((_, i) => !stored[i]);
}

/** The job handler of `presenter.preview` (its resource id is the presenter id). */
export async function renderPreview(deps: RenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  // A built-in presenter (queued at start), or a user's trained avatar (queued when training ends).
  const presenter = deps.presenters.builtIns.find((p) => p.id === job.resourceId) ?? (await deps.presenters.find(job.userId, job.resourceId));
  if (!presenter || (await deps.media.exists(presenter.owner, presenter.keys.talking))) return;
  if (!deps.voices) {
    deps.log.info('no talking preview without a voice catalogue', { presenter_id: presenter.id });
    return;
  }
  const workDir = join(deps.config.dataDir, 'work', `preview-${presenter.id}-${job.id}`);
  const outputPath = join(workDir, 'preview.mp4');
  return renderStep(deps.backend, CLIP_JOB, {
    jobId: job.id,
    workDir,
    outputPath,
    onProgress: () => {},
    prepare: async () => {
      const voice = await deps.voices!.resolve({ type: presenter.voice.type, voiceId: presenter.voice.voice_id, ...(presenter.gender !== 'other' ? { gender: presenter.gender } : {}) });
      const speech = await speakToWav(providerOf(deps.voices, voice.provider.type), { text: previewSentence(presenter), voiceId: voice.voiceId, signal: ctx.signal }, workDir);
      return {
        jobId: job.id, sourcePath: presenter.imagePath,
        driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: presenter.id },
        logo: { kind: 'none' }, resultFormat: 'mp4', mute: false, stitch: false, maxAnimatedFaces: 1,
        outputPath, workDir, signal: ctx.signal,
      };
    },
    deliver: () => deps.media.putFile(presenter.owner, presenter.keys.talking, outputPath, 'video/mp4'),
  });
}

const PREVIEW_KEY = /^presenters\/([^/]+)\/talking-preview\.mp4$/;
/** How long a fetch of a preview not yet rendered waits for it, and how often it looks. */
export const PREVIEW_WAIT = { polls: 600, everyMs: 250 };

/**
 * Makes a talking preview a URL was fetched for before it was stored (MediaAccess.whenMissing):
 * queues its job unless one is on its way (in this process or another) and waits, bounded,
 * until the file is stored. A job that ends without it, or a wait past the bound, is a 503.
 */
export function previewMaker(deps: Pick<RenderDeps, 'presenters' | 'media' | 'queue'>) {
  return {
    matches: (_owner: string, key: string) => PREVIEW_KEY.test(key),
    async make(owner: string, key: string, signal: AbortSignal): Promise<void> {
      const presenterId = PREVIEW_KEY.exec(key)![1]!;
      const presenter = deps.presenters.builtIns.find((p) => p.id === presenterId) ?? (await deps.presenters.find(owner, presenterId));
      if (!presenter || presenter.owner !== owner) return;
      const jobId = await deps.queue.enqueueOnce({ kind: PREVIEW_JOB, resourceId: presenter.id, userId: owner, maxAttempts: 3 });
      for (let i = 0; i < PREVIEW_WAIT.polls && !signal.aborted; i++) {
        if (await deps.media.exists(owner, key)) return;
        const job = await deps.queue.get(jobId);
        if (job?.status === 'failed' || job?.status === 'cancelled' || (job?.status === 'done' && !(await deps.media.exists(owner, key)))) {
          throw new ApiError('ServiceUnavailableError', 'The talking preview could not be rendered; fetch it again to retry');
        }
        await sleep(PREVIEW_WAIT.everyMs, undefined, { signal }).catch(() => {});
      }
      if (!(await deps.media.exists(owner, key))) throw new ApiError('ServiceUnavailableError', 'The talking preview is still being rendered; fetch it again shortly');
    },
  };
}
