import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { MAX_PATCH_DEPTH, mergePatch } from '../../src/agents/body.ts';

/** `{a: {a: ... {a: 1}}}`, `levels` objects deep. */
const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('mergePatch', () => {
  it('merges objects, removes what is null and replaces the rest', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, d: [1], e: 'x' }, { a: { b: null, f: { g: null, h: 3 } }, d: [2], e: null })).toEqual({ a: { c: 2, f: { h: 3 } }, d: [2] });
  });

  it(`takes a patch ${MAX_PATCH_DEPTH} objects deep`, () => {
    expect(mergePatch({}, nested(MAX_PATCH_DEPTH))).toEqual(nested(MAX_PATCH_DEPTH));
  });

  it('refuses a deeper patch with a 400 naming the limit (10,000 levels overflowed the stack: a 500)', () => {
    for (const levels of [MAX_PATCH_DEPTH + 1, 10_000]) {
      let caught: unknown;
      try {
        mergePatch({ a: { a: 1 } }, nested(levels));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect((caught as ApiError).status).toBe(400);
      expect((caught as ApiError).description).toContain(`more than ${MAX_PATCH_DEPTH} levels deep`);
    }
  });
});
