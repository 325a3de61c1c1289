/**
 * scripts/ensure-pocketsphinx.mjs decides from the machine: present, install Debian's
 * pocketsphinx and pocketsphinx-en-us with apt-get (as root, or through sudo -n), or fail
 * saying what to do. The install branch is checked on a pretended machine (and through the
 * CLI's --dry-run --assume-missing), never run for real.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { plan } from '../../scripts/ensure-pocketsphinx.mjs';
import { runsSpeechTests } from '../browser/global-setup.ts';
import { ROOT } from '../helpers/cli.ts';

const debian = { platform: 'linux', has: (c: string) => c === 'apt-get' || c === 'sudo', present: () => false };
const apt = ['apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q'];

describe('ensure-pocketsphinx', () => {
  it('does nothing when the binary and the model are there', () => {
    expect(plan({ ...debian, uid: 1000, present: () => true })).toEqual({ action: 'present' });
  });

  it('installs both Debian packages with apt-get, non-interactively, as root', () => {
    expect(plan({ ...debian, uid: 0, sudoWorks: () => false })).toEqual({
      action: 'install',
      commands: [[...apt, 'update'], [...apt, 'install', '--no-install-recommends', 'pocketsphinx', 'pocketsphinx-en-us']],
    });
  });

  it('goes through sudo -n when not root, and fails with what to run when sudo asks for a password', () => {
    const p = plan({ ...debian, uid: 1000, sudoWorks: () => true });
    expect(p.action === 'install' && p.commands.map((c) => c.slice(0, 5))).toEqual([
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
      ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
    ]);
    expect(plan({ ...debian, uid: 1000, sudoWorks: () => false })).toMatchObject({ action: 'fail', reason: expect.stringContaining('sudo apt-get install -y pocketsphinx pocketsphinx-en-us') });
    expect(plan({ ...debian, uid: 1000, has: (c) => c === 'apt-get' })).toMatchObject({ action: 'fail', reason: expect.stringContaining('needs root') });
  });

  it('fails clearly without apt-get', () => {
    expect(plan({ ...debian, uid: 0, platform: 'darwin' })).toMatchObject({ action: 'fail', reason: expect.stringContaining('apt-get') });
    expect(plan({ ...debian, uid: 0, has: () => false })).toMatchObject({ action: 'fail', reason: expect.stringContaining('apt-get') });
  });

  it('says on the command line what it would run on a machine without it, changing nothing', () => {
    const r = spawnSync(process.execPath, ['scripts/ensure-pocketsphinx.mjs', '--dry-run', '--assume-missing'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('would install');
    expect(r.stderr).toMatch(/would run: .*apt-get .* update\n.*would run: .*apt-get .* install --no-install-recommends pocketsphinx pocketsphinx-en-us/);
    const misuse = spawnSync(process.execPath, ['scripts/ensure-pocketsphinx.mjs', '--assume-missing'], { cwd: ROOT, encoding: 'utf8' });
    expect(misuse.status).toBe(1);
  });
});

describe('the test run installs pocketsphinx before the tests that transcribe', () => {
  it('for the whole suite and for filters that may include test/footage, consents or avatars, not for other folders', () => {
    const vitest = ['node', 'vitest.mjs', 'run'];
    expect(runsSpeechTests([...vitest, '--reporter=default'])).toBe(true);
    expect(runsSpeechTests([...vitest, 'test/footage'])).toBe(true);
    expect(runsSpeechTests([...vitest, 'test/footage/match.test.ts'])).toBe(true);
    expect(runsSpeechTests([...vitest, 'test/consents'])).toBe(true);
    expect(runsSpeechTests([...vitest, 'test'])).toBe(true);
    expect(runsSpeechTests([...vitest, 'test/agents', 'test/browser'])).toBe(false);
  });
});
