/**
 * vitest's globalSetup (vitest.config.ts): before any test file runs, makes sure the Chromium
 * the browser tests drive is installed (scripts/ensure-chromium.mjs: apt-get when missing, a
 * version check when present), and Debian's pocketsphinx with its English model for the
 * tests that transcribe consent videos (scripts/ensure-pocketsphinx.mjs). A run limited to
 * other folders (`npx vitest run test/agents`) skips them, so a developer without root can
 * run those without either. The same goes for OpenStack Swift, the S3 server of test/media/.
 */
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';
import { ensurePocketsphinx } from '../../scripts/ensure-pocketsphinx.mjs';
import type { TestProject } from 'vitest/node';
import { startTestPostgres } from '../helpers/postgres-setup.ts';
import { provideSwift } from '../media/swift-setup.ts';

/** The positional filters of `vitest run a b`; none means every test file. */
function filters(argv: string[]): string[] {
  const i = argv.findIndex((a) => a === 'run' || a === 'watch' || a === 'related');
  const rest = i >= 0 ? argv.slice(i + 1) : [];
  const out: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k]!;
    if (a.startsWith('-')) {
      // `--flag value`: the value is not a filter (flags written --flag=value carry their own).
      if (!a.includes('=') && rest[k + 1] !== undefined && !rest[k + 1]!.startsWith('-') && !/\.test\.ts$|^test\b/.test(rest[k + 1]!)) k++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Whether the tests of `test/<folder>/` may be among the files run. */
function runsTestsOf(argv: string[], folder: string): boolean {
  const f = filters(argv);
  return f.length === 0 || f.some((x) => x.includes(folder) || `test/${folder}/`.startsWith(x.replace(/^\.\//, '')));
}

/** Whether the browser tests may be among the files run. */
export function runsBrowserTests(argv: string[]): boolean {
  return runsTestsOf(argv, 'browser');
}

/** The folders whose tests transcribe speech with pocketsphinx (consent videos). */
const SPEECH_FOLDERS = ['footage', 'consents', 'avatars'];

/** Whether tests that run pocketsphinx may be among the files run. */
export function runsSpeechTests(argv: string[]): boolean {
  return SPEECH_FOLDERS.some((folder) => runsTestsOf(argv, folder));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (runsBrowserTests(process.argv)) {
    const version = ensureChromium();
    if (process.env.MIMIC_VERBOSE_SETUP) console.error(`browser tests: ${version}`);
  }
  // Debian's pocketsphinx and its English model (scripts/ensure-pocketsphinx.mjs).
  if (runsSpeechTests(process.argv)) ensurePocketsphinx();
  // A throwaway PostgreSQL cluster for the tests that run on both dialects (test/helpers/postgres-setup.ts).
  const postgres = await startTestPostgres(process.argv, runsTestsOf);
  project.provide('postgresUrl', postgres.url);
  // A throwaway OpenStack Swift with s3api for the tests of media on S3 (scripts/ensure-swift.mjs).
  const stopSwift = await provideSwift(project, runsTestsOf(process.argv, 'media'));
  return async () => {
    postgres.stop();
    await stopSwift();
  };
}
