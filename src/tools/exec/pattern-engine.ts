import type { Options } from 'ajv';
import { RE2JS } from 're2js';

/**
 * The regular-expression engine of user-written schemas (`pattern`, `patternProperties`):
 * RE2, whose matching time is linear in the input. JavaScript's backtracking engine takes
 * exponential time on patterns such as `^(a+)+$`, and one such call froze the whole process.
 *
 * RE2 has no backreferences and no lookaround (they are what makes backtracking necessary);
 * a pattern using them is refused when the tool is created, with the reason.
 */
export class UnsupportedPattern extends Error {
  constructor(readonly pattern: string, reason: string) {
    super(reason);
    this.name = 'UnsupportedPattern';
  }
}

/**
 * Why RE2 refuses a pattern that is valid ECMAScript, in words a user can act on; undefined
 * when it compiles, or when it is not ECMAScript at all (the schema compiler reports that).
 */
export function patternProblem(pattern: string): string | undefined {
  try {
    re2Pattern(pattern);
    return undefined;
  } catch (err) {
    return err instanceof UnsupportedPattern ? err.message : undefined;
  }
}

/**
 * Compiling (not matching) with JavaScript's engine is linear, so it only checks the syntax.
 * `translateRegExp` turns ECMAScript-only syntax into RE2's (named groups, `\u` escapes, `/`),
 * but reads a named backreference `\k<name>` as the literal text `k<name>`: that one is refused
 * here, before it could silently match something else.
 */
function re2Pattern(pattern: string): RE2JS {
  // JSON Schema patterns are ECMAScript: what JavaScript refuses is refused with its own words.
  new RegExp(pattern, 'u');
  const refused = (what: string) =>
    new UnsupportedPattern(pattern, `uses ${what}, which patterns do not support (they run on RE2: no backreferences or lookaround)`);
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && (next === 'k' || (next >= '1' && next <= '9'))) throw refused('a backreference');
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && /^\?<?[=!]/.test(pattern.slice(i + 1, i + 4))) {
      throw refused('lookahead or lookbehind');
    }
  }
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    throw new UnsupportedPattern(pattern, `is not a valid RE2 regular expression: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Ajv's `code.regExp`: `(pattern, flags) => {test}`. JSON Schema patterns are unanchored, as
 * `RE2JS.test` is. Ajv passes `u` only (ajv's `unicodeRegExp`), which is how RE2 reads text.
 */
type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

export const re2Engine: RegExpEngine = Object.assign((pattern: string) => re2Pattern(pattern), { code: 're2Engine' });
