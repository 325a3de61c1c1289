import type { ComputeBackend, RenderRequest, RenderResult } from './interface.ts';
import type { RenderTaskKind } from './tasks/index.ts';

/** A job's step on a backend: the result, or a wait (the job parks; see src/jobs/README.md). */
export type RenderStep = { result: RenderResult } | { wait: { recheckMs: number } };

export interface RenderStepInput {
  jobId: string;
  outputPath: string;
  /** Builds the request (fetches inputs): called only when the task must start. */
  prepare: () => Promise<RenderRequest>;
  onProgress: (done: number, total: number) => void;
}

/**
 * Runs one job's render task of `kind` on the backend. In-process backends render inside the
 * job; a parking backend gets the task handed over and the job waits, without a runner slot,
 * until the task ends; the job's next run then finds the result here (or the failure, thrown).
 */
export async function renderStep(backend: ComputeBackend, kind: RenderTaskKind, input: RenderStepInput): Promise<RenderStep> {
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
