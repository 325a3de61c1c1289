import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords hashed with argon2id (OWASP's parameters: 19 MiB, 2 passes, 1 lane), peppered with
 * a key derived from the master key (argon2's `secret`), so that a copy of the database alone
 * cannot be guessed against. The algorithm is argon2's default (argon2id): its `Algorithm` is an
 * ambient const enum that `isolatedModules` cannot read.
 */
export interface Passwords {
  hash(password: string): Promise<string>;
  verify(stored: string, password: string): Promise<boolean>;
  /** The same work as a verify, for an email that has no account: sign-in takes as long either way. */
  dummyVerify(password: string): Promise<void>;
}

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './contract.ts';

export function createPasswords(pepper: Buffer, cost: { memoryCost: number; timeCost: number }): Passwords {
  const options = { memoryCost: cost.memoryCost, timeCost: cost.timeCost, parallelism: 1, secret: pepper };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      try {
        return await verify(stored, password, { secret: pepper });
      } catch {
        return false; // a malformed stored hash verifies nothing
      }
    },
    async dummyVerify(password) {
      dummy ??= hash(randomBytes(16).toString('base64url'), options);
      await verify(await dummy, password, { secret: pepper }).catch(() => false);
    },
  };
}
