import { expect } from 'vitest';

/** The error `p` rejects with, which must be a `type` (the test fails when `p` resolves or rejects otherwise). */
export async function rejectionOf<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const outcome = await p.then(
    () => ({ resolved: true as const }),
    (err: unknown) => ({ resolved: false as const, err }),
  );
  if (outcome.resolved) throw new Error(`expected a rejection with ${type.name}`);
  expect(outcome.err).toBeInstanceOf(type);
  return outcome.err as E;
}
