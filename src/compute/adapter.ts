import type { Config } from '../config.ts';
import type { ComputeBackend } from './interface.ts';
import type { StreamRenderer } from './stream.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { createLocalStreamRenderer } from './local/stream/index.ts';
import { createRemoteStreamRenderer } from './remote/stream.ts';
import { createLocalBackend } from './local/index.ts';
import { createRemoteBackend } from './remote/backend.ts';
import type { ComputeTasks } from './remote/task-store.ts';
import type { ComputeFiles } from './remote/files.ts';

export interface ComputeDeps {
  /** The task table the remote backend hands renders to workers through. */
  tasks: ComputeTasks;
  /** Where remote tasks' inputs and uploads live (remote/files.ts). */
  files?: ComputeFiles;
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
      return createRemoteBackend({ tasks: deps.tasks, pollMs: config.compute.pollMs, cancelGraceMs: config.worker.leaseMs, recheckMs: config.compute.leaseMs, ...(deps.files ? { files: deps.files } : {}) });
  }
}

/** What a remote stream renderer needs of the platform. */
export interface StreamRendererDeps {
  tasks: ComputeTasks;
  /** deriveKey(master, 'compute-url'): stream sockets are signed like task files. */
  urlKey: Buffer;
  clock: Clock;
  log: Logger;
  files?: ComputeFiles;
}

/**
 * The renderer of live streams (src/compute/stream.ts) the configuration names: the local
 * CPU engine (its render process starts with the first stream), or `stream.render` tasks for
 * remote workers (docs/compute-protocol.md, "Live streams").
 */
export function createStreamRenderer(config: Config, deps: StreamRendererDeps): StreamRenderer {
  switch (config.computeBackend) {
    case 'local':
      return createLocalStreamRenderer();
    case 'remote':
      return createRemoteStreamRenderer({ ...deps, waitMs: config.compute.streamWaitMs });
  }
}
