/**
 * vitest's globalSetup (vitest.config.ts): before any test file runs, makes sure the Chromium
 * the browser tests drive is installed (scripts/ensure-chromium.mjs: apt-get when missing, a
 * version check when present). A run limited to other folders (`npx vitest run test/agents`)
 * skips it, so a developer without root can run those without Chromium.
 */
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';

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

/** Whether the browser tests may be among the files run. */
export function runsBrowserTests(argv: string[]): boolean {
  const f = filters(argv);
  return f.length === 0 || f.some((x) => x.includes('browser') || 'test/browser/'.startsWith(x.replace(/^\.\//, '')));
}

export default function setup(): void {
  if (!runsBrowserTests(process.argv)) return;
  const version = ensureChromium();
  if (process.env.MIMIC_VERBOSE_SETUP) console.error(`browser tests: ${version}`);
}
