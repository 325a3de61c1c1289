import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FieldError } from '../../schemas/ajv.ts';
import { patternProblem, re2Engine } from './pattern-engine.ts';
import { uniqueItems } from './unique-items.ts';
import { VALIDATION_LIMITS, validationWork } from './validation-work.ts';

/**
 * Limits on a tool's `schema.parameters` (a JSON Schema written by the user):
 *
 * - a JSON object with `type: "object"` at the root (a tool call's input is an object);
 * - valid against the draft-07 meta-schema (`$schema`, when present, must name draft-07);
 * - at most 64 KiB serialized (UTF-8) and at most 32 levels of nested objects/arrays;
 * - every `pattern` and `patternProperties` key at most 1000 characters, and an RE2 expression
 *   (linear-time matching: no backreferences, no lookaround; see pattern-engine.ts);
 * - `$ref` local only (starting with `#`): nothing is ever fetched or shared between schemas;
 * - at most 1000 `anyOf` and `oneOf` branches in all: Ajv nests each branch in the one before
 *   it, and 2000 overflowed the stack when the validator first ran (every call a 500);
 * - `$id` below the root only as a plain-name fragment (`#name`): a URI there would change what
 *   the `$ref`s under it point to, and the work count (validation-work.ts) follows them from the root;
 * - it must compile: unresolvable `$ref`s, unknown `format`s, unknown keywords (typos such as
 *   `requird`) and invalid regular expressions are refused with the compiler's reason.
 *
 * And on each input, before Ajv runs (validation-work.ts): at most VALIDATION_LIMITS.maxSteps
 * (subschema, value) pairs, and a recursive schema followed at most VALIDATION_LIMITS.maxDepth
 * levels into the input; above VALIDATION_LIMITS.allReasonsSteps, only the first reason. `uniqueItems` runs in linear time (unique-items.ts).
 */
export const PARAMETERS_LIMITS = { maxBytes: 64 * 1024, maxDepth: 32, maxPatternLength: 1000, maxBranches: 1000 } as const;

/** Validators kept compiled; the key (tool id + updated_at) changes whenever the schema does. */
const CACHE_SIZE = 1000;
/** A model can send wildly wrong input (or a user a wildly wrong schema); a handful of reasons is enough to fix it. */
const MAX_DETAILS = 20;

const addFormats = formats.default;

/**
 * Strict about the schema (unknown keywords and formats are mistakes the user wants to hear
 * about at create time), lenient about type combinations users write every day, and never
 * changing the input (no defaults, coercion or removal: what the model sent is what is sent).
 */
const OPTIONS: Options = {
  allErrors: true,
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  validateFormats: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  logger: false,
  code: { regExp: re2Engine },
};

/** Validates user schemas against the meta-schema; never compiles or stores a user schema. */
const metaChecker = addFormats(new Ajv(OPTIONS));

/**
 * Each user schema compiles in its own Ajv instance (well under 1 ms more): a shared one
 * would keep every schema forever in its internal cache and let one tenant's `$id` clash with,
 * or be referenced from, another tenant's schema.
 */
function compile(parameters: object, allErrors = true): ValidateFunction {
  const ajv = addFormats(new Ajv({ ...OPTIONS, allErrors, meta: false, validateSchema: false, addUsedSchema: false }));
  ajv.addKeyword({ keyword: 'example' });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItems);
  return ajv.compile(parameters);
}

type Check = { ok: true } | { ok: false; details: FieldError[] };

const BASE = 'schema.parameters';

/** Checks a user-supplied `schema.parameters` before it is stored; see PARAMETERS_LIMITS. */
export function checkParameters(parameters: unknown): Check {
  const fail = (field: string, message: string): Check => ({ ok: false, details: [{ field, message }] });
  if (!isObject(parameters)) return fail(BASE, 'must be a JSON Schema object');

  const structural = scan(parameters);
  if (structural.length > 0) return { ok: false, details: structural };
  if (Buffer.byteLength(JSON.stringify(parameters)) > PARAMETERS_LIMITS.maxBytes) {
    return fail(BASE, `must be at most ${PARAMETERS_LIMITS.maxBytes} bytes of JSON`);
  }
  if (parameters.type !== 'object') return fail(`${BASE}.type`, 'must be "object"');

  try {
    if (!metaChecker.validateSchema(parameters)) {
      return { ok: false, details: toFieldErrors(metaChecker.errors ?? [], BASE) };
    }
  } catch {
    // Ajv throws when `$schema` names a meta-schema it does not have.
    return fail(`${BASE}.$schema`, 'must be the draft-07 meta-schema URI or be left out');
  }
  try {
    compile(parameters);
  } catch (err) {
    return fail(BASE, `does not compile: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { ok: true };
}

/**
 * Depth, `$ref`, and pattern-length limits, found before Ajv sees the schema (a long pattern
 * or a deep schema is work we refuse to do). Iterative, so depth cannot overflow the stack.
 */
function scan(root: object): FieldError[] {
  const found: FieldError[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: BASE, depth: 1 }];
  let branches = 0;
  while (stack.length > 0 && found.length < MAX_DETAILS) {
    const { value, path, depth } = stack.pop()!;
    if (depth > PARAMETERS_LIMITS.maxDepth) {
      return [{ field: BASE, message: `must nest at most ${PARAMETERS_LIMITS.maxDepth} levels deep` }];
    }
    for (const [key, child] of Object.entries(value as object)) {
      const at = `${path}.${key}`;
      if (key === '$ref' && typeof child === 'string' && !child.startsWith('#')) {
        found.push({ field: at, message: 'must be a local reference starting with # (remote references are not fetched)' });
      }
      if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(child) && (branches += child.length) > PARAMETERS_LIMITS.maxBranches) {
        return [{ field: at, message: `brings the anyOf and oneOf branches of the schema over ${PARAMETERS_LIMITS.maxBranches}` }];
      }
      if (key === '$id' && depth > 1 && typeof child === 'string' && !/^#[A-Za-z][\w.:-]*$/.test(child)) {
        found.push({ field: at, message: 'must be a plain-name fragment such as #address below the root (a URI would change what the $refs under it mean)' });
      }
      if (key === 'pattern' && typeof child === 'string') {
        const problem = child.length > PARAMETERS_LIMITS.maxPatternLength ? `must be at most ${PARAMETERS_LIMITS.maxPatternLength} characters` : patternProblem(child);
        if (problem) found.push({ field: at, message: problem });
      }
      if (key === 'patternProperties' && isObject(child)) {
        for (const pattern of Object.keys(child)) {
          if (pattern.length > PARAMETERS_LIMITS.maxPatternLength) {
            found.push({ field: at, message: `must have patterns of at most ${PARAMETERS_LIMITS.maxPatternLength} characters` });
          } else {
            const problem = patternProblem(pattern);
            if (problem) found.push({ field: `${at}.${pattern}`, message: `key ${problem}` });
          }
        }
      }
      if (typeof child === 'object' && child !== null) stack.push({ value: child, path: at, depth: depth + 1 });
    }
  }
  return found;
}

/** A tool's validators: every reason (small inputs), and the first reason only (large ones, compiled when first needed). */
type Validators = { all: ValidateFunction; first?: ValidateFunction };
const cache = new Map<string, Validators>();

/**
 * The input validator of a stored tool, compiled once per `key` (least recently used out).
 * Returns the reasons the input is invalid, empty when it is valid. Throws if `parameters`
 * does not compile, which `checkParameters` rules out for every stored tool.
 */
export function parameterValidator(key: string, parameters: object): (input: unknown) => FieldError[] {
  let validators = cache.get(key);
  if (validators) {
    cache.delete(key);
  } else {
    validators = { all: compile(parameters) };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, validators);
  const v = validators;
  return (input) => {
    const work = validationWork(parameters, input);
    if (typeof work === 'string') return [{ field: 'input', message: WORK_REFUSED[work] }];
    const run = (fn: ValidateFunction) => (fn(input) ? [] : toFieldErrors(fn.errors ?? [], 'input').slice(0, MAX_DETAILS));
    if (work <= VALIDATION_LIMITS.allReasonsSteps) return run(v.all);
    try {
      return run((v.first ??= compile(parameters, false)));
    } catch (err) {
      if (!(err instanceof RangeError) || v.first === v.all) throw err;
      // Without `allErrors` Ajv nests each check inside the one before it: 2000 properties on one
      // object overflowed the stack compiling or first running it. Such a schema keeps the
      // every-reason validator for large inputs too.
      v.first = v.all;
      return run(v.all);
    }
  };
}

const WORK_REFUSED = {
  'too-much': `is too large for this tool's schema: validating it would take more than ${VALIDATION_LIMITS.maxSteps} steps (its values times the parts of the schema that apply to each); send less input or simplify the schema`,
  'too-deep': `nests deeper than ${VALIDATION_LIMITS.maxDepth} levels into this tool's recursive schema`,
} as const;

/** Ajv errors as `{field, message}` with dotted paths under `base`, in the style of `src/schemas/ajv.ts`. */
function toFieldErrors(errors: readonly ErrorObject[], base: string): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    // A failed anyOf/oneOf lists each branch's reason and then a summary; the branches say why.
    if ((e.keyword === 'anyOf' || e.keyword === 'oneOf') && errors.length > 1) continue;
    const item = { field: fieldOf(e, base), message: messageOf(e) };
    const key = `${item.field}\u0000${item.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

function fieldOf(e: ErrorObject, base: string): string {
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === 'required' && params.missingProperty !== undefined) segments.push(params.missingProperty);
  if (e.keyword === 'additionalProperties' && params.additionalProperty !== undefined) segments.push(params.additionalProperty);
  return [base, ...segments].join('.');
}

function messageOf(e: ErrorObject): string {
  const params = e.params as { format?: string; pattern?: string; allowedValues?: unknown[] };
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not an allowed field';
    case 'format':
      return `must be a valid ${params.format}`;
    case 'pattern':
      return `must match the pattern ${params.pattern}`;
    case 'enum':
      return `must be one of ${clip(JSON.stringify(params.allowedValues))}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/** Allowed values come from the schema, but a long enum would drown the message. */
const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
