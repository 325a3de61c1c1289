#!/usr/bin/env node
// Makes sure Debian's PostgreSQL server is installed, and starts throwaway clusters for the
// tests that run the stores on PostgreSQL (test/stores/ and the multi-process tests). When the
// server binaries (/usr/lib/postgresql/<version>/bin/initdb and pg_ctl) are there it changes
// nothing; otherwise it installs the `postgresql` package with apt-get, non-interactively, as
// root or through `sudo -n`. A cluster lives in a new temporary folder, listens on 127.0.0.1
// at a free port with `trust` authentication for one user (`mimic`), runs without fsync (a
// test's data is thrown away), and is removed when stopped. As root, the server runs as the
// `postgres` user the package creates (PostgreSQL refuses to run as root).
//
//   node scripts/ensure-postgres.mjs             install when missing
//   node scripts/ensure-postgres.mjs --dry-run   say what it would do, change nothing
//   node scripts/ensure-postgres.mjs --start     install when missing, start a cluster, print its URL, stop it on Ctrl-C
//
// The test run calls it from test/browser/global-setup.ts (vitest's globalSetup).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PACKAGE = 'postgresql';
const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin folder, or undefined. */
export function serverBin(root = ROOT) {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : undefined;
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** What to do: nothing (present), the apt-get commands, or why it cannot. */
export function plan({ uid = process.getuid?.() ?? -1, platform = process.platform, bin = serverBin(), has = onPath, sudoWorks = () => spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0 } = {}) {
  if (bin) return { action: 'present', bin };
  if (platform !== 'linux' || !has('apt-get')) return { action: 'fail', reason: `no PostgreSQL server under ${ROOT} and this is not a Debian-like system with apt-get; install PostgreSQL 15 or newer` };
  let prefix = [];
  if (uid !== 0) {
    if (!has('sudo') || !sudoWorks()) return { action: 'fail', reason: `no PostgreSQL server under ${ROOT}, and installing it needs root: run \`sudo apt-get install -y ${PACKAGE}\` once` };
    prefix = ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
  }
  const apt = [...prefix, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];
  return { action: 'install', commands: [[...apt, 'update'], [...apt, 'install', '--no-install-recommends', PACKAGE]] };
}

/** Installs when missing; answers the server's bin folder, or throws with what to do. */
export function ensurePostgres({ dryRun = false, log = (line) => console.error(line) } = {}) {
  const p = plan();
  if (p.action === 'fail') throw new Error(`ensure-postgres: ${p.reason}`);
  if (p.action === 'present') return p.bin;
  for (const command of p.commands) {
    log(`ensure-postgres: ${dryRun ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dryRun) continue;
    const [bin, ...args] = command;
    const r = spawnSync(bin, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`ensure-postgres: \`${command.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); install the ${PACKAGE} package by hand`);
  }
  if (dryRun) return 'would install';
  const bin = serverBin();
  if (!bin) throw new Error(`ensure-postgres: installed ${PACKAGE} but found no server under ${ROOT}`);
  log(`ensure-postgres: installed ${bin}`);
  return bin;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as the `postgres` user when we are root. */
function run(bin, args, asPostgres) {
  const command = asPostgres ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
  const r = spawnSync(command[0], command.slice(1), { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`ensure-postgres: \`${command.join(' ')}\` failed: ${(r.stderr || r.stdout || r.error?.message || '').trim().slice(-800)}`);
  return r.stdout;
}

/**
 * Starts a throwaway cluster; answers its URL (database `postgres`, user `mimic`, no password)
 * and `stop()`, which stops it at once and removes its folder.
 */
export async function startCluster({ bin = ensurePostgres(), maxConnections = 400 } = {}) {
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'mimic-pg-'));
  const data = join(dir, 'data');
  // The server's user must own the folder; nobody else needs to read it.
  if (asPostgres) spawnSync('chown', ['postgres:postgres', dir]);
  chmodSync(dir, 0o700);
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'mimic', '-E', 'UTF8', '--no-sync', '--no-instructions'], asPostgres);
  const port = await freePort();
  const options = [`-p ${port}`, `-k ${dir}`, `-c listen_addresses=127.0.0.1`, `-c max_connections=${maxConnections}`, '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
  run(join(bin, 'pg_ctl'), ['-D', data, '-o', options.join(' '), '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start'], asPostgres);
  let stopped = false;
  return {
    url: `postgres://mimic@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asPostgres);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--dry-run' && a !== '--start');
  if (unknown.length) {
    console.error(`usage: node scripts/ensure-postgres.mjs [--dry-run | --start] (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  try {
    if (args.includes('--start')) {
      const cluster = await startCluster();
      console.log(cluster.url);
      const stop = () => {
        cluster.stop();
        process.exit(0);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      setInterval(() => {}, 1 << 30);
    } else {
      console.log(ensurePostgres({ dryRun: args.includes('--dry-run') }));
    }
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
