#!/usr/bin/env node
// A real S3 server for the tests of media on S3 (test/media/): Debian's OpenStack Swift with
// its s3api middleware, which checks SigV4 signatures as AWS does. Installs the packages with
// apt-get when missing (as root or through `sudo -n`, like ensure-chromium.mjs), and starts a
// throwaway all-in-one Swift: a proxy (tempauth with one test user, s3api) and one account,
// container and object server, each on a free loopback port, rings of one device built with
// swift-ring-builder, everything (configs, rings, data) in one temporary folder that stop()
// removes. Nothing under /etc is read or written (`swift_dir` points at the folder).
//
//   node scripts/ensure-swift.mjs             install when missing
//   node scripts/ensure-swift.mjs --dry-run   say what it would do, change nothing
//   node scripts/ensure-swift.mjs --dry-run --assume-missing
//   node scripts/ensure-swift.mjs --start     install when missing, start one, print its settings, stop on Ctrl-C
//
// The test run calls ensureSwift() and startSwift() from test/browser/global-setup.ts when
// test/media/ is among the files run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const PACKAGES = ['swift', 'swift-proxy', 'swift-account', 'swift-container', 'swift-object'];
const SERVERS = ['swift-proxy-server', 'swift-account-server', 'swift-container-server', 'swift-object-server'];
/** The tempauth user: its S3 access key is `<account>:<user>`, its secret the password. */
const ACCOUNT = 'test', USER = 'tester', PASSWORD = 'testing';

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function sudoWithoutPassword() {
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
}

/** Nothing to do (present), the apt-get commands to run, or why it cannot install. */
export function plan({ uid = process.getuid?.() ?? -1, platform = process.platform, has = onPath, sudoWorks = sudoWithoutPassword, present = () => [...SERVERS, 'swift-ring-builder'].every(onPath) } = {}) {
  if (present()) return { action: 'present' };
  if (platform !== 'linux' || !has('apt-get')) return { action: 'fail', reason: 'OpenStack Swift is missing and this is not a Debian-like system with apt-get' };
  let prefix = [];
  if (uid !== 0) {
    if (!has('sudo') || !sudoWorks()) return { action: 'fail', reason: `OpenStack Swift is missing and installing it needs root: run \`sudo apt-get install -y ${PACKAGES.join(' ')}\` once` };
    prefix = ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'];
  }
  const apt = [...prefix, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];
  return { action: 'install', commands: [[...apt, 'update'], [...apt, 'install', '--no-install-recommends', ...PACKAGES]] };
}

/** Installs Swift when missing; answers 'present', 'installed' or 'would install', or throws with what to do. */
export function ensureSwift({ dryRun = false, assumeMissing = false, log = (line) => console.error(line) } = {}) {
  if (assumeMissing && !dryRun) throw new Error('ensure-swift: --assume-missing only goes with --dry-run');
  const p = plan(assumeMissing ? { present: () => false } : {});
  if (p.action === 'fail') throw new Error(`ensure-swift: ${p.reason}`);
  if (p.action === 'present') return 'present';
  for (const command of p.commands) {
    log(`ensure-swift: ${dryRun ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dryRun) continue;
    const [bin, ...args] = command;
    const r = spawnSync(bin, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`ensure-swift: \`${command.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); install ${PACKAGES.join(' ')} by hand`);
  }
  if (dryRun) return 'would install';
  if (plan().action !== 'present') throw new Error('ensure-swift: installed the packages but the servers are still not on PATH');
  return 'installed';
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const serverConf = (dir, port, app) => `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
devices = ${join(dir, 'srv')}
mount_check = false
swift_dir = ${dir}
log_level = WARNING

[pipeline:main]
pipeline = ${app}-server

[app:${app}-server]
use = egg:swift#${app}

[${app}-replicator]
[${app}-auditor]
`;

const proxyConf = (dir, port) => `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${dir}
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_${ACCOUNT}_${USER} = ${PASSWORD} .admin

# tempauth refuses to run without a memcache client; no memcached runs (S3 requests need none: each one is signed).
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:9

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
`;

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ensure-swift: \`${command} ${args.join(' ')}\` failed: ${(r.stderr || r.stdout || r.error?.message || '').trim().slice(0, 500)}`);
}

/** Waits until a bucket and an object can be written over S3 (every server answers, signatures are checked). */
async function untilReady(endpoint, children, timeoutMs) {
  const { S3Client, CreateBucketCommand, PutObjectCommand, DeleteObjectCommand, DeleteBucketCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: `${ACCOUNT}:${USER}`, secretAccessKey: PASSWORD }, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  try {
    while (Date.now() < deadline) {
      const dead = children.find((c) => c.exitCode !== null);
      if (dead) throw new Error(`ensure-swift: ${dead.spawnargs[0]} exited (${dead.exitCode}): ${dead.output().slice(-800)}`);
      try {
        await s3.send(new CreateBucketCommand({ Bucket: 'ready-probe' }));
        await s3.send(new PutObjectCommand({ Bucket: 'ready-probe', Key: 'probe', Body: 'ok' }));
        await s3.send(new DeleteObjectCommand({ Bucket: 'ready-probe', Key: 'probe' }));
        await s3.send(new DeleteBucketCommand({ Bucket: 'ready-probe' }));
        return;
      } catch (err) {
        last = err.message;
      }
      await sleep(200);
    }
  } finally {
    s3.destroy();
  }
  throw new Error(`ensure-swift: Swift did not become ready in ${timeoutMs} ms (${last}): ${children.map((c) => c.output().slice(-600)).join(' | ')}`);
}

/**
 * Starts a throwaway Swift with s3api on loopback. Answers what an S3 client needs and stop(),
 * which ends the servers and removes the folder.
 */
export async function startSwift({ timeoutMs = 60_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-swift-'));
  const children = [];
  const stop = async () => {
    await Promise.all(children.map((c) => new Promise((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 5_000).unref();
    })));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
    writeFileSync(join(dir, 'swift.conf'), '[swift-hash]\nswift_hash_path_suffix = mimic-test\nswift_hash_path_prefix = mimic-test\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n');
    const ports = { proxy: await freePort(), account: await freePort(), container: await freePort(), object: await freePort() };
    for (const ring of ['account', 'container', 'object']) {
      run('swift-ring-builder', [`${ring}.builder`, 'create', '10', '1', '1'], dir);
      run('swift-ring-builder', [`${ring}.builder`, 'add', `r1z1-127.0.0.1:${ports[ring]}/d1`, '100'], dir);
      run('swift-ring-builder', [`${ring}.builder`, 'rebalance'], dir);
      writeFileSync(join(dir, `${ring}-server.conf`), serverConf(dir, ports[ring], ring));
    }
    writeFileSync(join(dir, 'proxy-server.conf'), proxyConf(dir, ports.proxy));
    for (const server of ['account', 'container', 'object', 'proxy']) {
      const child = spawn(`swift-${server}-server`, [join(dir, `${server}-server.conf`), '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const keep = (b) => { out = (out + b.toString()).slice(-4000); };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.output = () => out;
      children.push(child);
    }
    const endpoint = `http://127.0.0.1:${ports.proxy}`;
    // Should this process die without stop() (a killed test run), the servers and the folder go with it.
    spawn('sh', ['-c', 'while kill -0 "$0" 2>/dev/null; do sleep 2; done; kill $1 2>/dev/null; rm -rf "$2"', String(process.pid), children.map((c) => c.pid).join(' '), dir], { stdio: 'ignore', detached: true }).unref();
    await untilReady(endpoint, children, timeoutMs);
    return { endpoint, region: 'us-east-1', accessKeyId: `${ACCOUNT}:${USER}`, secretAccessKey: PASSWORD, forcePathStyle: true, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const dryRun = args.includes('--dry-run');
  const unknown = args.filter((a) => !['--dry-run', '--assume-missing', '--start'].includes(a));
  if (unknown.length) {
    console.error(`usage: node scripts/ensure-swift.mjs [--dry-run [--assume-missing]] [--start] (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  try {
    console.log(ensureSwift({ dryRun, assumeMissing: args.includes('--assume-missing') }));
    if (args.includes('--start') && !dryRun) {
      const s = await startSwift();
      console.log(`MIMIC_S3_ENDPOINT=${s.endpoint}\nMIMIC_S3_REGION=${s.region}\nMIMIC_S3_ACCESS_KEY_ID=${s.accessKeyId}\nMIMIC_S3_SECRET_ACCESS_KEY=${s.secretAccessKey}\nMIMIC_S3_FORCE_PATH_STYLE=true\n(Ctrl-C stops it and removes ${s.dir})`);
      const quit = () => s.stop().then(() => process.exit(0));
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
    }
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
