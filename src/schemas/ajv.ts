import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema, Static } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';

/**
 * One Ajv instance validates every request body with the same JSON Schemas that the
 * OpenAPI document publishes. No coercion: "5" is not an integer, 1.5 is not an int32.
 */
const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
ajv.addKeyword('example');

const cache = new WeakMap<object, ValidateFunction>();

/** `$id`s name schemas in the OpenAPI document; Ajv would treat them as global keys, so they go. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== '$id').map(([k, v]) => [k, withoutIds(v)]));
}

function compiled(schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(withoutIds(schema) as object);
    cache.set(schema, fn);
  }
  return fn;
}

export interface FieldError {
  /** Dotted path of the offending field, e.g. `config.max_animated_faces`; empty for the body itself. */
  field: string;
  message: string;
}

function fieldOf(e: ErrorObject): string {
  const base = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
  const extra =
    e.keyword === 'additionalProperties'
      ? (e.params as { additionalProperty: string }).additionalProperty
      : e.keyword === 'required'
        ? (e.params as { missingProperty: string }).missingProperty
        : '';
  return [base, extra].filter(Boolean).join('.');
}

function messageOf(e: ErrorObject): string {
  switch (e.keyword) {
    case 'additionalProperties':
      return 'is not an allowed field';
    case 'required':
      return 'is required';
    case 'pattern':
      return `does not have the required form (${e.parentSchema?.description ?? `pattern ${(e.params as { pattern: string }).pattern}`})`;
    case 'const':
      return `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    case 'format':
      return `must be a ${(e.params as { format: string }).format} number`;
    default:
      return e.message ?? 'is invalid';
  }
}

const BRANCH = /^(.*?\/anyOf)\/(\d+)\//;
const TAG = /^properties\/[^/]+\/const$/;

/**
 * The errors worth reporting of a failed union of tagged objects (`script: {type: "text", ...} |
 * {type: "audio", ...}`): a branch whose tag (a `const` property of the union's object) did not
 * match says nothing about the value, so when another branch's tag matched, only that branch's
 * errors are kept; when no tag matched, only the tag errors are.
 */
function taggedBranchErrors(errors: readonly ErrorObject[]): readonly ErrorObject[] {
  const unions = new Map<string, { mismatched: Set<string>; branches: Set<string> }>();
  for (const e of errors) {
    const m = BRANCH.exec(e.schemaPath);
    if (!m) continue;
    const union = unions.get(m[1]!) ?? { mismatched: new Set(), branches: new Set() };
    unions.set(m[1]!, union);
    union.branches.add(m[2]!);
    // A tag is a `const` on a property of the branch's own object.
    if (e.keyword === 'const' && TAG.test(e.schemaPath.slice(m[0].length))) union.mismatched.add(m[2]!);
  }
  return errors.filter((e) => {
    const m = BRANCH.exec(e.schemaPath);
    const union = m ? unions.get(m[1]!) : undefined;
    if (!m || !union || union.mismatched.size === 0) return true;
    const someMatched = union.mismatched.size < union.branches.size;
    return someMatched ? !union.mismatched.has(m[2]!) : e.keyword === 'const';
  });
}

export function toFieldErrors(all: readonly ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  const errors = taggedBranchErrors(all);
  for (const e of errors) {
    // anyOf reports each failed branch and then a summary; the branch errors say why.
    if (e.keyword === 'anyOf' && errors.length > 1) continue;
    const item = { field: fieldOf(e), message: messageOf(e) };
    // The tags of a union none of whose tags matched: one message naming every allowed value.
    const sameField = e.keyword === 'const' ? out.find((o) => o.field === item.field && o.message.startsWith('must be ')) : undefined;
    if (sameField) {
      const allowed = sameField.message.replace(/^must be (one of )?/, '');
      sameField.message = `must be one of ${allowed}, ${item.message.replace(/^must be /, '')}`;
      continue;
    }
    const key = `${item.field}\u0000${item.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

/** Validates `value` against `schema`, or throws a 400 `kind` error naming each field and why. */
export function validate<S extends TSchema>(
  schema: S,
  value: unknown,
  what = 'request body',
  kind: 'BadRequestError' | 'ValidationError' = 'BadRequestError',
): Static<S> {
  const fn = compiled(schema);
  if (fn(value)) return value as Static<S>;
  const details = toFieldErrors(fn.errors ?? []);
  const first = details[0];
  const summary = first ? `${first.field || what} ${first.message}` : 'is invalid';
  throw new ApiError(kind, `Invalid ${what}: ${summary}`, details);
}

export { ajv };
