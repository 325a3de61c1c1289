/**
 * The throwaway PostgreSQL cluster of a test run (scripts/ensure-postgres.mjs), started by
 * vitest's globalSetup when tests that use it are among the files run, and handed to them as
 * `inject('postgresUrl')`. Where PostgreSQL cannot be installed or started, the URL is null and
 * those tests are skipped: a banner says so on stderr, and each skipped suite says so again.
 */
import { startCluster } from '../../scripts/ensure-postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test cluster's admin URL (user `mimic`, database `postgres`), or null when it could not start. */
    postgresUrl: string | null;
  }
}

/** The folders whose tests run on PostgreSQL too. */
export const POSTGRES_FOLDERS = ['stores', 'db', 'scale', 'media'];

export function banner(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length)) + 4;
  const bar = '!'.repeat(width);
  return ['', bar, ...lines.map((l) => `! ${l.padEnd(width - 4)} !`), bar, ''].join('\n');
}

export async function startTestPostgres(argv: string[], runsTestsOf: (argv: string[], folder: string) => boolean): Promise<{ url: string | null; stop: () => void }> {
  const none = { url: null, stop: () => {} };
  if (!POSTGRES_FOLDERS.some((f) => runsTestsOf(argv, f))) return none;
  if (process.env.MIMIC_TEST_POSTGRES === 'off') {
    console.error(banner(['PostgreSQL TESTS SKIPPED: MIMIC_TEST_POSTGRES=off.', 'The stores were tested on SQLite only.']));
    return none;
  }
  try {
    const cluster = await startCluster();
    return { url: cluster.url, stop: () => cluster.stop() };
  } catch (err) {
    console.error(banner(['PostgreSQL TESTS SKIPPED: no PostgreSQL server could be installed or started.', String((err as Error).message).slice(0, 300), 'The stores were tested on SQLite only.']));
    return none;
  }
}
