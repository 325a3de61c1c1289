import type { Config } from '../config.ts';
import type { ComputeBackend } from './interface.ts';
import type { StreamRenderer } from './stream.ts';
import { createLocalBackend } from './local/index.ts';
import { createRemoteBackend } from './remote/backend.ts';
import type { ComputeTasks } from './remote/task-store.ts';

export interface ComputeDeps {
  /** The task table the remote backend hands renders to workers through. */
  tasks: ComputeTasks;
}

/**
 * The compute adapter: picks the backend the configuration names. Adding a backend is a
 * folder beside `local/` implementing `ComputeBackend`, and one case here.
 */
export function createComputeBackend(config: Config, deps: ComputeDeps): ComputeBackend {
  switch (config.computeBackend) {
    case 'local':
      return createLocalBackend();
    case 'remote':
      // A task cancelled under a render (its animation deleted) is followed by the job runner's
      // abort within a job heartbeat; one job lease is the longest that may take.
      // A parked job looks at its task on its own once per task lease (a worker that died on its last attempt).
      return createRemoteBackend({ tasks: deps.tasks, pollMs: config.compute.pollMs, cancelGraceMs: config.worker.leaseMs, recheckMs: config.compute.leaseMs });
  }
}

/**
 * The renderer of live streams (src/compute/stream.ts) the configuration names.
 * MERGE: the local CPU renderer (src/compute/local/stream/, branch `engine`) is wired here:
 * `return createLocalStreamRenderer(...)`. Until then this build has none, and creating a
 * stream answers 503 (the streams module says so); tests pass their own renderer through
 * PlatformOptions.streamRenderer.
 */
export function createStreamRenderer(_config: Config): StreamRenderer | undefined {
  return undefined;
}
