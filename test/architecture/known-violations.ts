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
  infrastructure: [],
  'root-utility': [],
  'names-no-capability': [],
  'http-edge': [],
  'store-drizzle': [],
  'store-handle': [],
  llm: [],
};
