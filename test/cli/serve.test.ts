import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, mimicAsync } from '../helpers/cli.ts';

vi.setConfig({ testTimeout: 180_000 });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const START_SCRIPT = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Every live process started with this data directory in its environment (whatever re-parented it). */
function processesOf(dataDir: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`MIMIC_DATA_DIR=${dataDir}`)) found.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).ok;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string, child: ChildProcess, output: () => string): Promise<void> {
  for (;;) {
    if (await check()) return;
    if (child.exitCode !== null && what === 'serving') throw new Error(`exited ${child.exitCode} before serving:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts the service the given way, sends SIGTERM to the process it started, and checks nothing is left serving. */
async function stopsOnSigterm(command: string, args: string[], signal: NodeJS.Signals = 'SIGTERM', then?: (port: number, dataDir: string) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-signal-'));
  dirs.push(dataDir);
  const port = await freePort();
  let output = '';
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MIMIC_DATA_DIR: dataDir, MIMIC_SHUTDOWN_GRACE_MS: '2000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await until(() => healthy(port), 'serving', child, () => output);
    expect(processesOf(dataDir).length).toBeGreaterThan(0);
    await then?.(port, dataDir);
    child.kill(signal);
    await exited;
    // The listener is gone, and so is every process of this run (npm's child included).
    await until(async () => !(await healthy(port)) && processesOf(dataDir).length === 0, 'stopped', child, () => output);
    expect(output).toMatch(/shutting down/);
  } finally {
    for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL');
  }
}

describe('stopping the service', () => {
  it('npm start: SIGTERM to npm stops the node process that serves', async () => {
    await stopsOnSigterm('npm', ['start', '--silent']);
  });

  it("package.json's start line under sh -c, as npm runs it: SIGTERM to the shell stops node", async () => {
    await stopsOnSigterm('sh', ['-c', START_SCRIPT]);
  });

  it('bin/mimic.mjs serve: SIGTERM and SIGINT stop it', async () => {
    await stopsOnSigterm(process.execPath, ['bin/mimic.mjs', 'serve']);
    await stopsOnSigterm(process.execPath, ['bin/mimic.mjs', 'serve'], 'SIGINT');
  });
});

describe('starting the service', () => {
  it('a port already in use: one clear line and exit code 1, and the first server keeps serving', async () => {
    await stopsOnSigterm(process.execPath, ['bin/mimic.mjs', 'serve'], 'SIGTERM', async (port) => {
      const other = mkdtempSync(join(tmpdir(), 'mimic-port-'));
      dirs.push(other);
      const second = await mimicAsync(['serve'], { PORT: String(port), HOST: '127.0.0.1', MIMIC_DATA_DIR: other });
      expect(second.code).toBe(1);
      const lines = second.stderr.split('\n').filter((l) => l && !l.startsWith('!!!'));
      expect(lines).toEqual([`error: cannot listen on 127.0.0.1:${port}: the port is already in use (another mimic, or another program); set PORT or HOST`]);
      expect(await healthy(port)).toBe(true);
    });
  });

  it('a bad setting: one configuration error line, exit code 1, nothing served', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mimic-config-'));
    dirs.push(dataDir);
    const res = await mimicAsync(['serve'], { PORT: '0', MIMIC_PUBLIC_URL: 'ftp://x', MIMIC_DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('configuration error: MIMIC_PUBLIC_URL must be an absolute http:// or https:// URL like https://mimic.example.com, got "ftp://x"');
  });
});
