import type { ComputeBackend, RenderRequest, RenderResult } from './interface.ts';

/** A job's step on a backend: the result, or a wait (the job parks; see src/jobs/README.md). */
export type RenderStep = { result: RenderResult } | { wait: { recheckMs: number } };

export interface RenderStepInput {
  jobId: string;
  outputPath: string;
  /** Builds the request (fetches inputs): called only when a render must start. */
  prepare: () => Promise<RenderRequest>;
  onProgress: (done: number, total: number) => void;
}

/**
 * Runs one job's render on the backend. In-process backends render inside the job; a parking
 * backend gets the render handed over and the job waits, without a runner slot, until the
 * task ends; the job's next run then finds the result here (or the failure, thrown).
 */
export async function renderStep(backend: ComputeBackend, input: RenderStepInput): Promise<RenderStep> {
  const parking = backend.parking;
  if (!parking) return { result: await backend.render(await input.prepare()) };
  const now = await parking.poll(input.jobId, input.outputPath);
  if (now.state === 'done') return { result: now.result };
  if (now.state === 'running') {
    if (now.progress) input.onProgress(now.progress.done, now.progress.total);
  } else {
    await parking.submit(await input.prepare());
  }
  return { wait: { recheckMs: parking.recheckMs } };
}
