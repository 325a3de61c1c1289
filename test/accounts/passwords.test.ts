import { describe, expect, it } from 'vitest';
import { createPasswords } from '../../src/accounts/passwords.ts';
import { DEFAULT_PASSWORD_COST } from '../../src/accounts/settings.ts';

const pepper = Buffer.alloc(32, 7);

describe('passwords', () => {
  it('hashes with argon2id at OWASP parameters (19 MiB, t=2, p=1) and a fresh salt each time', async () => {
    const p = createPasswords(pepper, DEFAULT_PASSWORD_COST);
    const a = await p.hash('correct horse battery');
    const b = await p.hash('correct horse battery');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await p.verify(a, 'correct horse battery')).toBe(true);
  });

  it('refuses a wrong password, the right one under another pepper, and a malformed hash', async () => {
    const p = createPasswords(pepper, DEFAULT_PASSWORD_COST);
    const stored = await p.hash('correct horse battery');
    expect(await p.verify(stored, 'correct horse batterY')).toBe(false);
    expect(await createPasswords(Buffer.alloc(32, 8), DEFAULT_PASSWORD_COST).verify(stored, 'correct horse battery')).toBe(false);
    expect(await p.verify('$argon2id$garbage', 'correct horse battery')).toBe(false);
  });

  it('the dummy verify for an unknown email does an argon2 verify of the same cost', async () => {
    const p = createPasswords(pepper, DEFAULT_PASSWORD_COST);
    await p.dummyVerify('warm up'); // the dummy hash is made once
    const stored = await p.hash('correct horse battery');
    const time = async (f: () => Promise<unknown>) => {
      const start = performance.now();
      for (let i = 0; i < 3; i++) await f();
      return performance.now() - start;
    };
    const real = await time(() => p.verify(stored, 'wrong password'));
    const dummy = await time(() => p.dummyVerify('wrong password'));
    // Same work: within a factor of three either way (generous: the machine is shared).
    expect(dummy).toBeGreaterThan(real / 3);
    expect(dummy).toBeLessThan(real * 3);
  });
});
