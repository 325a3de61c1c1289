import { describe, expect, it } from 'vitest';
import { ensureSwift, plan } from '../../scripts/ensure-swift.mjs';

describe('scripts/ensure-swift.mjs', () => {
  const debian = { platform: 'linux', has: () => true, present: () => false };
  it('does nothing when the servers are there, installs with apt-get as root or through sudo -n, and says what to do otherwise', () => {
    expect(plan({ ...debian, present: () => true })).toEqual({ action: 'present' });
    const root = plan({ ...debian, uid: 0 });
    expect(root).toMatchObject({ action: 'install' });
    const commands = (root as { commands: string[][] }).commands;
    expect(commands[0]).toEqual(['apt-get', '-o', 'DPkg::Lock::Timeout=600', '-y', '-q', 'update']);
    expect(commands[1]).toEqual(expect.arrayContaining(['install', '--no-install-recommends', 'swift-proxy', 'swift-object', 'swift-account', 'swift-container']));
    expect((plan({ ...debian, uid: 1000, sudoWorks: () => true }) as { commands: string[][] }).commands[1]!.slice(0, 2)).toEqual(['sudo', '-n']);
    expect(plan({ ...debian, uid: 1000, sudoWorks: () => false })).toMatchObject({ action: 'fail', reason: expect.stringContaining('needs root') });
    expect(plan({ ...debian, platform: 'darwin' })).toMatchObject({ action: 'fail' });
  });

  it('--dry-run --assume-missing lists the commands and runs none', () => {
    const lines: string[] = [];
    expect(ensureSwift({ dryRun: true, assumeMissing: true, log: (l) => lines.push(l) })).toMatch(/would install|present/);
    expect(() => ensureSwift({ assumeMissing: true })).toThrow(/only goes with --dry-run/);
  });
});
