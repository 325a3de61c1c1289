/**
 * How much work validating one input against a user schema can take, counted before Ajv
 * runs, so that a schema and an input that together would block the process are refused
 * (a 400) instead of validated. Ajv's work is the pairs (subschema, input value) it visits;
 * two things make that number explode while the schema stays under 64 KiB and the input
 * under 1 MiB:
 *
 * - `$ref`s applied in place (`allOf`/`anyOf`/`oneOf`/`not`/`if`): 30 definitions each an
 *   `allOf` of two references to the next reach the last one 2^30 times (3 s on one string;
 *   an `anyOf` of 24 such levels ran out of memory collecting the reasons and killed the
 *   process);
 * - a wide schema times a long input: 2000 `anyOf` branches on each of 50,000 items, 200
 *   `patternProperties` on each of 30,000 keys, 2400 `properties` names looked up on each of
 *   100,000 objects (seconds, or a stack overflow).
 *
 * The count walks the schema along the input itself, so a recursive schema (a tree) costs
 * what the input's own nesting makes it cost, and stops at the budget: the walk never does
 * more than `maxSteps` steps. It over-counts where Ajv stops early (the first `anyOf` branch
 * that holds, the first reason of a large input), and does not under-count what Ajv visits;
 * `uniqueItems` counts one step an item (unique-items.ts hashes each once).
 */
export const VALIDATION_LIMITS = {
  /** (subschema, input value) pairs per input, plus the scans and checks below, in steps. */
  maxSteps: 1_000_000,
  /** Input nesting a recursive schema may follow (Ajv recurses once per level). */
  maxDepth: 256,
  /**
   * Above this many steps an invalid input reports its first reason only: collecting every
   * reason of 500,000 wrong items took 2 s and 300 MB (the reasons are cut to 20 anyway).
   */
  allReasonsSteps: 20_000,
} as const;

/** What a walk of one input found: its steps within the limits, or which limit it crossed. */
export type Work = number | 'too-much' | 'too-deep';

type Schema = Record<string, unknown> | boolean;

/** Schemas (`allOf`, `anyOf`, ...) applied to the same value. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'] as const;
/** Characters scanned per step by `pattern`, `patternProperties` and `format`. */
const CHARS_PER_STEP = 32;
/**
 * Checks per step that Ajv makes once per name of the schema, whatever the value holds: each
 * `properties` name is looked up on every object (2400 names on 100,000 empty objects: 2.6 s),
 * each `enum` value compared (3000 strings on 100,000 items: 1.7 s), each `required` and
 * `dependencies` name.
 */
const CHECKS_PER_STEP = 8;

export function validationWork(root: object, input: unknown): Work {
  const anchors = anchorsOf(root);
  const targets = new Map<string, unknown>();
  const target = (ref: string) => {
    if (!targets.has(ref)) targets.set(ref, resolve(root, anchors, ref));
    return targets.get(ref);
  };
  const names = new Map<object, number>();
  /** How many names a schema's `properties` or `dependencies` object holds, counted once. */
  const namesOf = (o: Record<string, unknown>) => names.get(o) ?? names.set(o, Object.keys(o).length).get(o)!;
  let steps = 0;
  const stack: { schema: Schema; value: unknown; depth: number }[] = [{ schema: root as Schema, value: input, depth: 0 }];
  const push = (schema: unknown, value: unknown, depth: number) => {
    if (typeof schema === 'boolean' || isObject(schema)) stack.push({ schema, value, depth });
  };
  const scanned = (text: string) => 1 + Math.floor(text.length / CHARS_PER_STEP);

  while (stack.length > 0) {
    const { schema, value, depth } = stack.pop()!;
    if (++steps > VALIDATION_LIMITS.maxSteps) return 'too-much';
    if (depth > VALIDATION_LIMITS.maxDepth) return 'too-deep';
    if (typeof schema === 'boolean') continue;

    if (typeof schema.$ref === 'string') push(target(schema.$ref), value, depth);
    if (Array.isArray(schema.enum)) steps += schema.enum.length / CHECKS_PER_STEP;
    for (const key of IN_PLACE_LISTS) {
      const list = schema[key];
      if (Array.isArray(list)) for (const s of list) push(s, value, depth);
    }
    for (const key of IN_PLACE_ONE) push(schema[key], value, depth);

    if (typeof value === 'string') {
      if (typeof schema.pattern === 'string') steps += scanned(value);
      if (typeof schema.format === 'string') steps += scanned(value);
    } else if (Array.isArray(value)) {
      const { items, additionalItems, contains } = schema;
      if (Array.isArray(items)) {
        value.forEach((v, i) => push(i < items.length ? items[i] : additionalItems, v, depth + 1));
      } else {
        for (const v of value) push(items, v, depth + 1);
      }
      for (const v of value) push(contains, v, depth + 1);
      if (schema.uniqueItems === true) steps += value.length;
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      const { properties, patternProperties, additionalProperties, propertyNames, dependencies, required } = schema;
      if (isObject(properties)) {
        steps += namesOf(properties) / CHECKS_PER_STEP;
        for (const key of keys) if (Object.hasOwn(properties, key)) push(properties[key], value[key], depth + 1);
      }
      if (Array.isArray(required)) steps += required.length / CHECKS_PER_STEP;
      if (isObject(patternProperties)) {
        // Every pattern is tried on every key; the subschema is counted on every value (an over-count).
        for (const [pattern, s] of Object.entries(patternProperties)) {
          for (const key of keys) {
            steps += scanned(key) + Math.floor(pattern.length / CHARS_PER_STEP);
            push(s, value[key], depth + 1);
          }
          if (steps > VALIDATION_LIMITS.maxSteps) return 'too-much';
        }
      }
      for (const key of keys) push(additionalProperties, value[key], depth + 1);
      for (const key of keys) push(propertyNames, key, depth + 1);
      if (isObject(dependencies)) {
        steps += namesOf(dependencies) / CHECKS_PER_STEP;
        for (const [key, d] of Object.entries(dependencies)) {
          if (!Object.hasOwn(value, key)) continue;
          if (Array.isArray(d)) steps += d.length;
          else push(d, value, depth);
        }
      }
    }
  }
  return Math.ceil(steps);
}

/** A local `$ref` (`#`, `#/json/pointer`, or a plain-name `#anchor` declared by an `$id`). */
function resolve(root: object, anchors: Map<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return anchors.get(ref);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const segment = safeDecode(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function anchorsOf(root: object): Map<string, unknown> {
  const anchors = new Map<string, unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (isObject(node) && typeof node.$id === 'string' && node.$id.startsWith('#')) anchors.set(node.$id, node);
    stack.push(...Object.values(node));
  }
  return anchors;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
