import type { Config } from '../config.ts';
import type { ComputeBackend } from './interface.ts';
import { createLocalBackend } from './local/index.ts';

/**
 * The compute adapter: picks the backend the configuration names. Adding a backend is a
 * folder beside `local/` implementing `ComputeBackend`, and one case here.
 */
export function createComputeBackend(config: Config): ComputeBackend {
  switch (config.computeBackend) {
    case 'local':
      return createLocalBackend();
  }
}
