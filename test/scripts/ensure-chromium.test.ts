/**
 * scripts/ensure-chromium.mjs decides from the machine: present, install with apt-get (as
 * root, or through sudo -n), or fail saying what to do. The install branch is checked on a
 * pretended machine (and through the CLI's --dry-run --assume-missing), never run for real.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHROMIUM, plan } from '../../scripts/ensure-chromium.mjs';
import { runsBrowserTests } from '../browser/global-setup.ts';
import { ROOT } from '../helpers/cli.ts';

const debian = { platform: 'linux', has: (c: string) => c === 'apt-get' || c === 'sudo', present: () => false };
const apt = ['apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];

describe('ensure-chromium', () => {
  it('does nothing when the binary is there', () => {
    expect(plan({ ...debian, uid: 1000, present: (f) => f === DEFAULT_CHROMIUM })).toEqual({ action: 'present', path: DEFAULT_CHROMIUM });
  });

  it('installs Debian\'s chromium with apt-get, non-interactively, as root', () => {
    expect(plan({ ...debian, uid: 0, sudoWorks: () => false })).toEqual({
      action: 'install',
      path: DEFAULT_CHROMIUM,
      commands: [[...apt, 'update'], [...apt, 'install', '--no-install-recommends', 'chromium']],
    });
  });

  it('goes through sudo -n when not root, and fails with what to run when sudo asks for a password', () => {
    const p = plan({ ...debian, uid: 1000, sudoWorks: () => true });
    expect(p.action === 'install' && p.commands.map((c) => c.slice(0, 5))).toEqual([
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
    ]);
    const refused = plan({ ...debian, uid: 1000, sudoWorks: () => false });
    expect(refused).toMatchObject({ action: 'fail', reason: expect.stringContaining('sudo apt-get install -y chromium') });
    expect(plan({ ...debian, uid: 1000, has: (c) => c === 'apt-get' })).toMatchObject({ action: 'fail', reason: expect.stringContaining('needs root') });
  });

  it('fails clearly without apt-get, or when MIMIC_CHROMIUM names no binary', () => {
    expect(plan({ ...debian, uid: 0, platform: 'darwin' })).toMatchObject({ action: 'fail', reason: expect.stringContaining('MIMIC_CHROMIUM') });
    expect(plan({ ...debian, uid: 0, has: () => false })).toMatchObject({ action: 'fail', reason: expect.stringContaining('apt-get') });
    expect(plan({ ...debian, uid: 0, path: '/opt/none/chrome' })).toMatchObject({ action: 'fail', reason: expect.stringContaining('/opt/none/chrome') });
  });

  it('says on the command line what it would run on a machine without it, changing nothing', () => {
    const r = spawnSync(process.execPath, ['scripts/ensure-chromium.mjs', '--dry-run', '--assume-missing'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('would install');
    expect(r.stderr).toMatch(/would run: .*apt-get .* update\n.*would run: .*apt-get .* install --no-install-recommends chromium/);
    const misuse = spawnSync(process.execPath, ['scripts/ensure-chromium.mjs', '--assume-missing'], { cwd: ROOT, encoding: 'utf8' });
    expect(misuse.status).toBe(1);
  });
});

describe('the test run installs Chromium before the tests', () => {
  it('for the whole suite and for any filter that may include test/browser, not for other folders', () => {
    const vitest = ['node', 'vitest.mjs', 'run'];
    expect(runsBrowserTests([...vitest, '--reporter=default', '--outputFile.json=.vitest-report.json'])).toBe(true);
    expect(runsBrowserTests([...vitest, 'test/browser'])).toBe(true);
    expect(runsBrowserTests([...vitest, 'test/browser/example.test.ts'])).toBe(true);
    expect(runsBrowserTests([...vitest, 'test'])).toBe(true);
    expect(runsBrowserTests([...vitest, '--reporter', 'verbose', 'test/browser'])).toBe(true);
    expect(runsBrowserTests([...vitest, 'test/agents', 'test/llm'])).toBe(false);
  });
});
