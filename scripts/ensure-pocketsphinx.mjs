#!/usr/bin/env node
// Makes sure Debian's pocketsphinx and its US English model are installed: the consent check
// transcribes English consent videos with them (src/footage/recognition/pocketsphinx.ts), and
// the tests of test/footage/ and test/consents/ run them. Idempotent: when the binary and the
// model are there it changes nothing. Otherwise it installs the `pocketsphinx` and
// `pocketsphinx-en-us` packages with apt-get, non-interactively, as root or through `sudo -n`,
// and fails with a message saying what to do when it cannot.
//
//   node scripts/ensure-pocketsphinx.mjs             install when missing
//   node scripts/ensure-pocketsphinx.mjs --dry-run   say what it would do, change nothing
//   node scripts/ensure-pocketsphinx.mjs --dry-run --assume-missing   what it would do on a machine without it
//   node scripts/ensure-pocketsphinx.mjs --best-effort   install when it can; otherwise say so and exit 0
//
// The test run calls it once, from test/browser/global-setup.ts (vitest's globalSetup); `npm start`
// calls it with --best-effort before the service starts (without it, English consents wait for an
// operator's review instead of being transcribed: docs/consents.md).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const POCKETSPHINX_BIN = '/usr/bin/pocketsphinx_continuous';
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
/** The files the recogniser opens (src/footage/recognition/pocketsphinx.ts: modelFiles). */
export const MODEL_FILES = ['en-us/mdef', 'en-us.lm.bin', 'cmudict-en-us.dict'].map((f) => `${POCKETSPHINX_MODEL_DIR}/${f}`);
const PACKAGES = ['pocketsphinx', 'pocketsphinx-en-us'];

function usable(file, mode) {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** Whether the binary runs-able and the model files are readable. */
function installed() {
  return usable(POCKETSPHINX_BIN, constants.X_OK) && MODEL_FILES.every((f) => usable(f, constants.R_OK));
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function sudoWithoutPassword() {
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
}

/**
 * What to do on this machine: nothing (present), the apt-get commands to run and how
 * (root or sudo), or why it cannot install. Pure apart from looking at the machine.
 */
export function plan({ uid = process.getuid?.() ?? -1, platform = process.platform, has = onPath, present = installed, sudoWorks = sudoWithoutPassword } = {}) {
  if (present()) return { action: 'present' };
  if (platform !== 'linux' || !has('apt-get')) {
    return { action: 'fail', reason: `${POCKETSPHINX_BIN} or its model (${POCKETSPHINX_MODEL_DIR}) is missing and this is not a Debian-like system with apt-get; English consents then cannot be transcribed (they go to operator review)` };
  }
  let prefix = [];
  if (uid !== 0) {
    if (!has('sudo') || !sudoWorks()) {
      return { action: 'fail', reason: `pocketsphinx is missing and installing it needs root: run \`sudo apt-get install -y ${PACKAGES.join(' ')}\` once (or this script as root)` };
    }
    prefix = ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
  }
  // Wait for another apt (a second test run, unattended upgrades) instead of failing on its lock.
  const apt = [...prefix, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];
  return {
    action: 'install',
    // The package lists may be missing (slim images) or stale: update first, then install.
    commands: [
      [...apt, 'update'],
      [...apt, 'install', '--no-install-recommends', ...PACKAGES],
    ],
  };
}

/** Runs the plan; answers 'present', 'installed' (or, dry, 'would install'), or throws with what to do. */
export function ensurePocketsphinx({ dryRun = false, assumeMissing = false, log = (line) => console.error(line) } = {}) {
  if (assumeMissing && !dryRun) throw new Error('ensure-pocketsphinx: --assume-missing only goes with --dry-run');
  const p = plan(assumeMissing ? { present: () => false } : {});
  if (p.action === 'fail') throw new Error(`ensure-pocketsphinx: ${p.reason}`);
  if (p.action === 'present') {
    if (dryRun) log(`ensure-pocketsphinx: ${POCKETSPHINX_BIN} and ${POCKETSPHINX_MODEL_DIR} are present; nothing to do`);
    return 'present';
  }
  for (const command of p.commands) {
    log(`ensure-pocketsphinx: ${dryRun ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dryRun) continue;
    const [bin, ...args] = command;
    const r = spawnSync(bin, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`ensure-pocketsphinx: \`${command.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); install ${PACKAGES.join(' ')} by hand`);
  }
  if (dryRun) return 'would install';
  if (!installed()) throw new Error(`ensure-pocketsphinx: installed ${PACKAGES.join(' ')} but ${POCKETSPHINX_BIN} or the model files are still missing`);
  log(`ensure-pocketsphinx: installed ${PACKAGES.join(' ')}`);
  return 'installed';
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const dryRun = args.includes('--dry-run');
  const assumeMissing = args.includes('--assume-missing');
  const bestEffort = args.includes('--best-effort');
  const unknown = args.filter((a) => a !== '--dry-run' && a !== '--assume-missing' && a !== '--best-effort');
  if (unknown.length) {
    console.error(`usage: node scripts/ensure-pocketsphinx.mjs [--dry-run [--assume-missing]] [--best-effort] (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  try {
    const outcome = ensurePocketsphinx({ dryRun, assumeMissing });
    if (!bestEffort || outcome !== 'present') console.log(outcome);
  } catch (err) {
    console.error(err.message);
    if (bestEffort) {
      console.error('ensure-pocketsphinx: continuing without it: English consent videos will wait for an operator review (mimic consents review)');
      process.exit(0);
    }
    process.exit(1);
  }
}
