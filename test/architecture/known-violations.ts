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
    // db/stores.ts builds every store, the kit's and the capabilities': each should build its own from the handle
    'db/stores.ts -> agents/chat/store.ts',
    'db/stores.ts -> agents/store.ts',
    'db/stores.ts -> audit/store.ts',
    'db/stores.ts -> resources/store.ts',
    'db/stores.ts -> secrets/store.ts',
    'db/stores.ts -> tools/store.ts',
    'db/stores.ts -> users/store.ts',
    'db/stores.ts -> webhooks/outbox-store.ts',
    'db/stores.ts -> webhooks/secrets-store.ts',
  ],
  'root-utility': [],
  'names-no-capability': [
    // db/stores.ts builds the oauth2 refresh lock on the secrets table: secrets should build it
    'db/stores.ts -> "secrets"',
  ],
  'http-edge': [],
  'store-drizzle': [],
  'store-handle': [],
  llm: [],
};
