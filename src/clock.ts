import { randomFillSync } from 'node:crypto';

/** Injected time and id sources, so logic never calls Date.now() or randomUUID() deep inside. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export type IdFactory = (prefix: string) => string;

let lastMs = 0;
let sequence = 0;

/**
 * Ids look like `anm_0mhx2k9q10001a7f3c9e2b4d6f8a1`: a type prefix, the time in base 36, a
 * per-process sequence, then 64 random bits. They sort by creation time (and by creation
 * order within one process), which keeps list pages stable for records of the same millisecond.
 */
// Random bytes drawn 4 KiB at a time: one getrandom call per 512 ids instead of one per id
// (system calls are costly in sandboxed runtimes, and a tool call makes two ids).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function random8(): string {
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + 8);
  poolOffset += 8;
  return hex;
}

export const randomId: IdFactory = (prefix) => {
  const ms = Date.now();
  sequence = ms === lastMs ? sequence + 1 : 0;
  lastMs = ms;
  return `${prefix}_${ms.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${random8()}`;
};

export const isoTime = (ms: number): string => new Date(ms).toISOString();
