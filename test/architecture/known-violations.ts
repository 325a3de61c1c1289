/**
 * The ratchet of the layer test: every violation of the layer rules that src/ still has,
 * one line per file pair ('from -> to', paths under src/). It only shrinks: the test fails on a
 * violation not listed here and on a listed one that no longer occurs, and prints the lines to
 * add or delete. A move of issue 19 §2 that lands deletes its lines; a new line needs a reason.
 */
import type { RuleId } from './imports.ts';

export const KNOWN_VIOLATIONS: Record<RuleId, readonly string[]> = {
  placement: [],
  edge: [],
  'capability-contract': [],
  kit: [],
  kernel: [],
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
