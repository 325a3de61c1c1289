import type { Job } from './store.ts';

/**
 * The job catalogue: every kind of job the runner knows, with its handler and its policy.
 * Capabilities declare their kinds (e.g. `animation.render`); the runner reads nothing else.
 */

export interface JobContext {
  signal: AbortSignal;
  /** true on the job's last allowed attempt: a handler may then record a final failure itself. */
  lastAttempt: boolean;
}

/**
 * What a run ends with: nothing (done), or a park: the job waits (no lease, no runner slot)
 * for what it registered with `waitOn` in its store transaction, and is looked at again no
 * later than `recheckMs` from now.
 */
export type JobOutcome = void | { wait: { recheckMs: number } };

export type JobHandler = (job: Job, ctx: JobContext) => Promise<JobOutcome>;

export interface JobKind {
  kind: string;
  handler: JobHandler;
  /** Attempts before the job gives up (stored on the row when it is enqueued). */
  maxAttempts: number;
  /** Delay before retry n (1-based). */
  backoffMs: (attempt: number) => number;
  /** One run longer than this is aborted and counts as a failed attempt. */
  timeLimitMs: number;
  /** Called once when the job has used all its attempts (or crashed that often): marks its resource failed. */
  onExhausted: (job: Job, reason: string) => void | Promise<void>;
}

export interface JobCatalogue {
  get(kind: string): JobKind | undefined;
  readonly kinds: readonly string[];
}

/** Exponential: 2 s, 4 s, 8 s ... capped at a minute. */
export const defaultBackoff = (attempt: number): number => Math.min(60_000, 2000 * 2 ** (attempt - 1));

export function jobCatalogue(kinds: readonly JobKind[]): JobCatalogue {
  const byKind = new Map<string, JobKind>();
  for (const k of kinds) {
    if (byKind.has(k.kind)) throw new Error(`job kind ${k.kind} is declared twice`);
    byKind.set(k.kind, k);
  }
  return { get: (kind) => byKind.get(kind), kinds: [...byKind.keys()] };
}
