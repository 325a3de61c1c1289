import { describe, expect, it } from 'vitest';
import { patternProblem, re2Engine, UnsupportedPattern } from '../../../src/tools/exec/pattern-engine.ts';

describe('the pattern engine (RE2)', () => {
  it('matches unanchored, as JSON Schema patterns do, with ECMAScript syntax', () => {
    expect(re2Engine('b+', 'u').test('abbbc')).toBe(true);
    expect(re2Engine('^b+$', 'u').test('abbbc')).toBe(false);
    expect(re2Engine('^(?<year>\\d{4})-\\d{2}$', 'u').test('2024-05')).toBe(true);
    expect(re2Engine('^\\u0041\\/$', 'u').test('A/')).toBe(true);
    expect(re2Engine('^\\p{L}+$', 'u').test('Ωmega')).toBe(true);
  });

  it('refuses a backreference with a clear error', () => {
    expect(() => re2Engine('(a)\\1', 'u')).toThrow(UnsupportedPattern);
    expect(() => re2Engine('(a)\\1', 'u')).toThrow('uses a backreference, which patterns do not support (they run on RE2: no backreferences or lookaround)');
    expect(patternProblem('(?<x>a)\\k<x>')).toMatch(/^uses a backreference/);
  });

  it('refuses lookahead and lookbehind', () => {
    for (const p of ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) expect(patternProblem(p)).toMatch(/^uses lookahead or lookbehind/);
  });

  it('does not mistake escaped or bracketed characters for backreferences or lookaround', () => {
    for (const p of ['\\\\1', '\\(?=', '[(?=]', '\\0', '(?:a)', '(?<n>a)']) expect(patternProblem(p)).toBeUndefined();
    expect(re2Engine('^\\\\1$', 'u').test('\\1')).toBe(true);
  });

  it('leaves patterns that are not ECMAScript to the compiler, with its words', () => {
    expect(patternProblem('(')).toBeUndefined();
    expect(() => re2Engine('(', 'u')).toThrow(/Invalid regular expression/);
  });

  it('refuses other ECMAScript that RE2 does not run, naming RE2', () => {
    expect(patternProblem('a{1001}')).toMatch(/^is not a valid RE2 regular expression: .*repeat count/);
  });

  it('answers quickly on the classic catastrophic pattern (the vitest timeout is the guard)', () => {
    expect(re2Engine('^(a+)+$', 'u').test(`${'a'.repeat(100_000)}!`)).toBe(false);
  });
});
