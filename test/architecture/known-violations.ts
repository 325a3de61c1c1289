/**
 * The ratchet of the layer test: every violation of the layer rules that src/ still has,
 * one line per file pair ('from -> to', paths under src/). It only shrinks: the test fails on a
 * violation not listed here and on a listed one that no longer occurs, and prints the lines to
 * add or delete. A move of issue 19 §2 that lands deletes its lines; a new line needs a reason.
 */
import type { RuleId } from './imports.ts';

export const KNOWN_VIOLATIONS: Record<RuleId, readonly string[]> = {
  placement: [],
  edge: [
    // services.ts builds the webhook dispatcher: webhooks should provide it as a service from its module
    'services.ts -> webhooks/index.ts',
  ],
  'capability-contract': [
    // agents create talks through talks/create.ts: wants a talks service in talks/contract.ts
    'agents/service.ts -> talks/create.ts',
    // avatar training renders its talking preview with clips/preview.ts: the speaking engine moves to speaking/ (§2.1)
    'avatars/train.ts -> clips/preview.ts',
  ],
  kit: [
    // the resource store queues the final-state webhook through webhooks/outbox.ts in its own transaction
    'resources/store.ts -> webhooks/outbox.ts',
  ],
  kernel: [
    // the module contract is typed with the edge's Hono env and CLI command and the kit's Lifecycle
    'platform/module.ts -> cli/command.ts',
    'platform/module.ts -> http/env.ts',
    'platform/module.ts -> resources/lifecycle.ts',
  ],
  infrastructure: [
    // db/stores.ts builds the webhooks capability's two stores for the dispatcher services.ts builds: webhooks should build them with its dispatcher
    'db/stores.ts -> webhooks/outbox-store.ts',
    'db/stores.ts -> webhooks/secrets-store.ts',
  ],
  'root-utility': [],
  'names-no-capability': [],
  'http-edge': [],
  'store-drizzle': [],
  'store-handle': [],
  llm: [],
};
