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

/** The error `fn` throws, which must be a `type` (the test fails when `fn` returns or throws otherwise). */
export function thrownBy<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  let outcome: { threw: false } | { threw: true; err: unknown } = { threw: false };
  try {
    fn();
  } catch (err) {
    outcome = { threw: true, err };
  }
  if (!outcome.threw) throw new Error(`expected a throw of ${type.name}`);
  expect(outcome.err).toBeInstanceOf(type);
  return outcome.err as E;
}
