import { describe, expect, it, vi } from 'vitest';

/** Every argon2 verify, as called (the real one runs). */
const verified = vi.hoisted(() => [] as string[]);
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...real, verify: (stored: string, ...rest: Parameters<typeof real.verify> extends [unknown, ...infer R] ? R : never) => (verified.push(stored), real.verify(stored, ...rest)) };
});
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

  it('the dummy verify for an unknown email is a real argon2 verify at the same cost', async () => {
    const p = createPasswords(pepper, DEFAULT_PASSWORD_COST);
    verified.length = 0;
    await p.dummyVerify('wrong password');
    await p.dummyVerify('another');
    expect(verified).toHaveLength(2);
    for (const stored of verified) expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // One dummy hash, made once.
    expect(verified[0]).toBe(verified[1]);
  });
});
