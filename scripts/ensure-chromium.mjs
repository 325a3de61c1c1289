#!/usr/bin/env node
// Makes sure Debian's `chromium` is installed for the browser tests (test/browser/), which drive
// it headless with playwright-core. Idempotent: when the binary is there it only checks that
// it runs (a few tens of milliseconds). Otherwise it installs the `chromium` package with
// apt-get, non-interactively, as root or through `sudo -n`, and fails with a message saying
// what to do when it cannot.
//
//   node scripts/ensure-chromium.mjs             install when missing
//   node scripts/ensure-chromium.mjs --dry-run   say what it would do, change nothing
//   node scripts/ensure-chromium.mjs --dry-run --assume-missing   what it would do on a machine without it
//   node scripts/ensure-chromium.mjs --path=/x   check another binary (default: MIMIC_CHROMIUM or /usr/bin/chromium)
//
// The test run calls it once, from test/browser/global-setup.ts (vitest's globalSetup).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const PACKAGE = 'chromium';

/** The binary the tests launch: MIMIC_CHROMIUM when set, else Debian's. */
export function chromiumPath(env = process.env) {
  return env.MIMIC_CHROMIUM || DEFAULT_CHROMIUM;
}

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function sudoWithoutPassword() {
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
}

/** `Chromium 156.0… built on Debian…`, or undefined when the binary does not run. */
function versionOf(file) {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return undefined;
  return r.stdout.trim().split('\n').at(-1) || undefined;
}

/**
 * What to do on this machine: nothing (present), the apt-get commands to run and how
 * (root or sudo), or why it cannot install. Pure apart from looking at the machine.
 */
export function plan({ path = chromiumPath(), uid = process.getuid?.() ?? -1, platform = process.platform, has = onPath, present = executable, sudoWorks = sudoWithoutPassword } = {}) {
  if (present(path)) return { action: 'present', path };
  if (path !== DEFAULT_CHROMIUM) {
    return { action: 'fail', reason: `${path} (MIMIC_CHROMIUM or --path) is not an executable file; point it at a Chromium binary, or unset it to use Debian's ${DEFAULT_CHROMIUM}` };
  }
  if (platform !== 'linux' || !has('apt-get')) {
    return { action: 'fail', reason: `${DEFAULT_CHROMIUM} is missing and this is not a Debian-like system with apt-get; install Chromium and set MIMIC_CHROMIUM to its binary` };
  }
  let prefix = [];
  if (uid !== 0) {
    if (!has('sudo') || !sudoWorks()) {
      return { action: 'fail', reason: `${DEFAULT_CHROMIUM} is missing and installing it needs root: run \`sudo apt-get install -y ${PACKAGE}\` once (or this script as root), or set MIMIC_CHROMIUM to a Chromium binary` };
    }
    prefix = ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
  }
  // Wait for another apt (a second test run, unattended upgrades) instead of failing on its lock.
  const apt = [...prefix, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];
  return {
    action: 'install',
    path,
    // The package lists may be missing (slim images) or stale: update first, then install.
    commands: [
      [...apt, 'update'],
      [...apt, 'install', '--no-install-recommends', PACKAGE],
    ],
  };
}

/** Runs the plan; answers the version line of the binary, or throws with what to do. */
export function ensureChromium({ dryRun = false, assumeMissing = false, path = chromiumPath(), log = (line) => console.error(line) } = {}) {
  if (assumeMissing && !dryRun) throw new Error('ensure-chromium: --assume-missing only goes with --dry-run');
  const p = plan({ path, ...(assumeMissing ? { present: () => false } : {}) });
  if (p.action === 'fail') throw new Error(`ensure-chromium: ${p.reason}`);
  if (p.action === 'present') {
    if (dryRun) {
      log(`ensure-chromium: ${path} is present; nothing to do`);
      return 'present';
    }
    const version = versionOf(path);
    if (!version) throw new Error(`ensure-chromium: ${path} exists but \`${path} --version\` fails; reinstall it (apt-get install --reinstall ${PACKAGE})`);
    return version;
  }
  for (const command of p.commands) {
    log(`ensure-chromium: ${dryRun ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dryRun) continue;
    const [bin, ...args] = command;
    const r = spawnSync(bin, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`ensure-chromium: \`${command.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); install the ${PACKAGE} package by hand`);
  }
  if (dryRun) return 'would install';
  const version = versionOf(path);
  if (!version) throw new Error(`ensure-chromium: installed ${PACKAGE} but ${path} does not run`);
  log(`ensure-chromium: installed ${version}`);
  return version;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const dryRun = args.includes('--dry-run');
  const assumeMissing = args.includes('--assume-missing');
  const pathArg = args.find((a) => a.startsWith('--path='));
  const unknown = args.filter((a) => a !== '--dry-run' && a !== '--assume-missing' && !a.startsWith('--path='));
  if (unknown.length) {
    console.error(`usage: node scripts/ensure-chromium.mjs [--dry-run [--assume-missing]] [--path=/usr/bin/chromium] (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  try {
    const result = ensureChromium({ dryRun, assumeMissing, ...(pathArg ? { path: pathArg.slice('--path='.length) } : {}) });
    console.log(result);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
