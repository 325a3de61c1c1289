import { extname } from 'node:path';
import { RenderError } from '../errors.ts';
import type { ComputeBackend } from '../compute/interface.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { Logger } from '../log.ts';
import { inputFile } from '../media/input-file.ts';
import { downloadTooLarge, inspectImage, maxBytesOf, resultFormatOf } from '../media/checks.ts';
import { renderSpeaking } from '../speaking/render.ts';
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

/** The job handler of `talk.render`: the talk's photo speaking its script. */
export async function renderTalk(deps: TalkRenderDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const started = await deps.lifecycle.start(job.resourceId);
  if (!started) return;
  const talk = readTalk(started);
  return renderSpeaking(deps, job, ctx, {
    record: talk,
    folder: 'talks',
    label: 'talk',
    taskKind: TALK_JOB,
    format: resultFormatOf(talk.req),
    stitch: talk.req.config?.stitch ?? false,
    padSec: talk.req.config?.pad_audio ?? 0,
    source: (workDir) => obtainPhoto(deps, talk, workDir),
    storedDetails: async () => readTalk((await deps.lifecycle.getById(talk.id)) ?? started).details,
  });
}
