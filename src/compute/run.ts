import { mkdir, rm } from 'node:fs/promises';
import type { ComputeBackend, RenderRequest, RenderResult } from './interface.ts';
import type { RenderTaskKind } from './tasks/index.ts';

/** A job that parks on its task (see src/jobs/README.md). */
export type RenderWait = { wait: { recheckMs: number } };

export interface RenderStepInput<T> {
  jobId: string;
  /**
   * The job's own folder (one per job): created here before `prepare`, kept while the task runs
   * elsewhere (the job's next run finds its inputs and result in it), removed once the step ends
   * in any other way: delivered, failed or thrown.
   */
  workDir: string;
  /** Where the task writes its result, inside `workDir`. */
  outputPath: string;
  /** Builds the request (fetches inputs into `workDir`): called only when the task must start. */
  prepare: () => Promise<RenderRequest>;
  onProgress: (done: number, total: number) => void;
  /** What the job does with the result, while `workDir` still holds it. */
  deliver: (result: RenderResult) => Promise<T>;
}

/**
 * Runs one job's render task of `kind` on the backend, in the job's work folder. In-process
 * backends render inside the job; a parking backend gets the task handed over and the job
 * waits, without a runner slot, until the task ends; the job's next run then finds the result
 * here (or the failure, thrown). Gives `deliver`'s value, or the wait.
 */
export async function renderStep<T>(backend: ComputeBackend, kind: RenderTaskKind, input: RenderStepInput<T>): Promise<T | RenderWait> {
  await mkdir(input.workDir, { recursive: true });
  let parked = false;
  try {
    const step = await taskStep(backend, kind, input);
    if ('wait' in step) {
      parked = true;
      return step;
    }
    return await input.deliver(step.result);
  } finally {
    if (!parked) await rm(input.workDir, { recursive: true, force: true });
  }
}

async function taskStep(backend: ComputeBackend, kind: RenderTaskKind, input: RenderStepInput<unknown>): Promise<{ result: RenderResult } | RenderWait> {
  const parking = backend.parking;
  if (!parking) return { result: await backend.run(kind, await input.prepare()) };
  const now = await parking.poll(kind, input.jobId, input.outputPath);
  if (now.state === 'done') return { result: now.result };
  if (now.state === 'running') {
    if (now.progress) input.onProgress(now.progress.done, now.progress.total);
  } else {
    await parking.submit(kind, await input.prepare());
  }
  return { wait: { recheckMs: parking.recheckMs } };
}
