import type { Logger } from '../log.ts';

/**
 * What `GET /health/ready` asks: can this process do its work now? Each dependency the platform
 * or a module needs (the database, its migrations, a media bucket) adds a named check; a check
 * resolves when the dependency answers and throws (or outlasts the timeout) when it does not.
 * The answer names the failing checks, never their errors (an error may name a host or a
 * user); the log says why, once per change of state.
 */
export type CheckStatus = 'ok' | 'failed' | 'timed out';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckStatus>;
}

export interface Readiness {
  /** Adds a named check (`bucket`, say); a name is added once. */
  add(name: string, check: () => Promise<void>): void;
  /** Runs every check at once, each within the timeout; concurrent callers share one run. */
  run(): Promise<ReadinessReport>;
}

/** Long enough for a healthy database across a network, short enough for a load balancer's check (2-5 s). */
export const READINESS_TIMEOUT_MS = 2_000;

class TimedOut extends Error {}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function createReadiness(opts: { log: Logger; timeoutMs?: number }): Readiness {
  const timeoutMs = opts.timeoutMs ?? READINESS_TIMEOUT_MS;
  const checks = new Map<string, () => Promise<void>>();
  const last = new Map<string, CheckStatus>();
  let running: Promise<ReadinessReport> | undefined;

  async function one(name: string, check: () => Promise<void>): Promise<CheckStatus> {
    let status: CheckStatus = 'ok';
    let reason: string | undefined;
    try {
      await within(Promise.resolve().then(check), timeoutMs);
    } catch (err) {
      status = err instanceof TimedOut ? 'timed out' : 'failed';
      reason = err instanceof TimedOut ? `no answer within ${timeoutMs} ms` : err instanceof Error ? err.message : String(err);
    }
    const before = last.get(name);
    last.set(name, status);
    if (status !== 'ok' && before !== status) opts.log.warn('not ready', { check: name, status, error: reason });
    if (status === 'ok' && before !== undefined && before !== 'ok') opts.log.info('ready again', { check: name });
    return status;
  }

  return {
    add(name, check) {
      if (checks.has(name)) throw new Error(`the readiness check "${name}" is added twice`);
      checks.set(name, check);
    },
    run() {
      running ??= (async () => {
        const entries = [...checks];
        const statuses = await Promise.all(entries.map(([name, check]) => one(name, check)));
        const report = Object.fromEntries(entries.map(([name], i) => [name, statuses[i]!]));
        return { ready: statuses.every((s) => s === 'ok'), checks: report };
      })().finally(() => (running = undefined));
      return running;
    },
  };
}
