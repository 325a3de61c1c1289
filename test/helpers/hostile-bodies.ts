/**
 * fast-check arbitraries for hostile request bodies, derived from the JSON Schemas of an OpenAPI
 * document. Every body `invalidBody` makes is invalid against its schema by construction (one
 * base mutation: not an object, a required field missing, a field of a type no branch allows, a
 * field the schema does not allow, or text that is not JSON), and then decorated with things a
 * parser or validator may choke on (huge strings, deep nesting, huge arrays, numbers such as
 * 1e309, invalid UTF-8, `__proto__` keys) that never make it valid again.
 *
 * Bodies are bytes: JSON text is built with placeholders for what JSON.stringify cannot write
 * (1e309, -0, a 10,000-level nest, bytes that are not UTF-8) and spliced afterwards.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface HostileBody {
  /** What the generator did, for the counter-example. */
  how: string[];
  bytes: Buffer;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
type JsonType = (typeof TYPES)[number];

/** A schema with its `$ref`s followed (into `#/components/schemas/`). */
export function resolver(doc: { components?: { schemas?: Record<string, Schema> } }) {
  const schemas = doc.components?.schemas ?? {};
  return function resolve(s: Schema | undefined): Schema {
    let out: Schema = s ?? {};
    for (let i = 0; i < 32 && typeof out.$ref === 'string'; i++) out = schemas[out.$ref.split('/').pop()!] ?? {};
    return out;
  };
}

/** The object shapes a (possibly anyOf/oneOf) schema admits: one per branch. */
function branches(resolve: (s: Schema) => Schema, s: Schema): Schema[] {
  const r = resolve(s);
  const alts = r.anyOf ?? r.oneOf;
  if (Array.isArray(alts)) return alts.flatMap((b: Schema) => branches(resolve, b));
  if (Array.isArray(r.allOf)) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of r.allOf.map(resolve)) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
      if (part.additionalProperties === false) merged.additionalProperties = false;
    }
    return [merged];
  }
  return [r];
}

/**
 * The JSON types a value may have under `s`, or undefined when any type may do (no `type`,
 * or a union we do not pick apart).
 */
function typesOf(resolve: (s: Schema) => Schema, s: Schema | undefined): Set<JsonType> | undefined {
  if (s === undefined) return undefined;
  const r = resolve(s);
  if (r.const !== undefined) return new Set([jsonType(r.const)]);
  if (Array.isArray(r.enum)) return new Set(r.enum.map(jsonType));
  const alts = r.anyOf ?? r.oneOf;
  if (Array.isArray(alts)) {
    const all = new Set<JsonType>();
    for (const a of alts) {
      const t = typesOf(resolve, a);
      if (!t) return undefined;
      for (const x of t) all.add(x);
    }
    return all;
  }
  if (r.type === undefined) return undefined;
  const types = new Set<JsonType>(Array.isArray(r.type) ? r.type : [r.type]);
  // An integer is a number too, and a number may be integral.
  if (types.has('number')) types.add('integer');
  return types;
}

function jsonType(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

/** A value of each JSON type, for "a value of a type the schema does not allow". */
const valueOfType: Record<JsonType, fc.Arbitrary<Json>> = {
  string: fc.oneof(fc.constant(''), fc.string({ maxLength: 20 }), fc.constant('1'), fc.constant('true'), fc.constant('null')),
  number: fc.oneof(fc.constant(1.5), fc.constant(-0.25), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))),
  integer: fc.oneof(fc.constant(0), fc.constant(-1), fc.constant(2 ** 53), fc.integer()),
  boolean: fc.boolean(),
  object: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 })),
  array: fc.oneof(fc.constant<Json[]>([]), fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 })),
  null: fc.constant(null),
};

/** A value of some type not in `allowed` (allowed may not be every type). */
function wrongTypeValue(allowed: Set<JsonType>): fc.Arbitrary<Json> | undefined {
  const wrong = TYPES.filter((t) => !allowed.has(t) && !(t === 'integer' && allowed.has('number')));
  return wrong.length > 0 ? fc.oneof(...wrong.map((t) => valueOfType[t])) : undefined;
}

/** A plausible value for `s`: the right type (and const or enum), not necessarily valid. */
function plausible(resolve: (s: Schema) => Schema, s: Schema | undefined, depth = 0): fc.Arbitrary<Json> {
  const r = resolve(s ?? {});
  if (r.const !== undefined) return fc.constant(r.const);
  if (Array.isArray(r.enum) && r.enum.length > 0) return fc.constantFrom(...r.enum);
  const alts = r.anyOf ?? r.oneOf;
  if (Array.isArray(alts) && alts.length > 0) return fc.oneof(...alts.map((a: Schema) => plausible(resolve, a, depth + 1)));
  const type = Array.isArray(r.type) ? r.type[0] : r.type;
  if (depth > 4) return fc.constant(null);
  switch (type) {
    case 'string':
      return fc.string({ minLength: r.minLength ?? 0, maxLength: Math.min(r.maxLength ?? 24, 24) });
    case 'integer':
      return fc.integer({ min: Math.max(r.minimum ?? -1000, -(2 ** 31)), max: Math.min(r.maximum ?? 1000, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: r.minimum ?? -1000, max: r.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(plausible(resolve, r.items, depth + 1), { maxLength: 2 });
    case 'object':
    case undefined:
      if (r.properties || r.required || type === 'object') return plausibleObject(resolve, r, depth);
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null));
    default:
      return fc.constant(null);
  }
}

function plausibleObject(resolve: (s: Schema) => Schema, r: Schema, depth: number): fc.Arbitrary<{ [k: string]: Json }> {
  const props: Record<string, Schema> = r.properties ?? {};
  const required = new Set<string>(r.required ?? []);
  const record: Record<string, fc.Arbitrary<Json>> = {};
  for (const name of new Set([...Object.keys(props), ...required])) record[name] = plausible(resolve, props[name], depth + 1);
  return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) }) as fc.Arbitrary<{ [k: string]: Json }>;
}

/** Names no schema of the API uses, and the ones that bite prototype-based code. */
const UNKNOWN_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'fuzz_unknown', '', ' ', 'id', 'owner_id', 'x'.repeat(300)];

interface Shape {
  required: Set<string>;
  /** Every property name any branch names, with the types each branch allows. */
  props: Map<string, (Set<JsonType> | undefined)[]>;
  closed: boolean;
  nBranches: number;
  /** The schema of a property that is the same single object schema in every branch. */
  objectProp: Map<string, Schema>;
}

function shapeOf(resolve: (s: Schema) => Schema, schema: Schema): Shape {
  const bs = branches(resolve, schema);
  const required = new Set<string>(bs[0]?.required ?? []);
  for (const b of bs.slice(1)) for (const k of [...required]) if (!(b.required ?? []).includes(k)) required.delete(k);
  const props = new Map<string, (Set<JsonType> | undefined)[]>();
  const objectProp = new Map<string, Schema>();
  bs.forEach((b) => {
    for (const [k, ps] of Object.entries<Schema>(b.properties ?? {})) {
      const list = props.get(k) ?? [];
      list.push(typesOf(resolve, ps));
      props.set(k, list);
    }
  });
  if (bs.length === 1) {
    for (const [k, ps] of Object.entries<Schema>(bs[0]!.properties ?? {})) {
      const r = resolve(ps);
      if (r.type === 'object' && (r.properties || r.required)) objectProp.set(k, r);
    }
  }
  return { required, props, closed: bs.every((b) => b.additionalProperties === false), nBranches: bs.length, objectProp };
}

/** Properties whose type is restricted in every branch (a wrong type there is wrong in all). */
function typedEverywhere(shape: Shape): [string, Set<JsonType>][] {
  const out: [string, Set<JsonType>][] = [];
  for (const [k, list] of shape.props) {
    if (list.length !== shape.nBranches || list.some((t) => t === undefined)) continue;
    const union = new Set<JsonType>();
    for (const t of list) for (const x of t!) union.add(x);
    if (wrongTypeValue(union)) out.push([k, union]);
  }
  return out;
}

/** Whether some object (not merely some other type) is refused by a schema of this shape. */
const breakableObject = (shape: Shape): boolean => shape.required.size > 0 || shape.closed || typedEverywhere(shape).length > 0;

type Mutated = { value: Json; how: string; touched: string | undefined };

/**
 * An object (or not) that `schema` refuses, from one base mutation. `touched` is the property
 * the mutation is about: decorations leave it (and the required ones) alone.
 */
function invalidValue(resolve: (s: Schema) => Schema, schema: Schema, depth = 0): fc.Arbitrary<Mutated> {
  const shape = shapeOf(resolve, schema);
  const skeleton = fc.oneof(...branches(resolve, schema).map((b) => plausibleObject(resolve, b, depth)));
  const options: fc.Arbitrary<Mutated>[] = [];

  // Not an object at all.
  options.push(fc.oneof(valueOfType.array, valueOfType.string, valueOfType.integer, valueOfType.boolean, valueOfType.null).map((value) => ({ value, how: `not an object: ${JSON.stringify(value)}`, touched: undefined })));
  if (shape.required.size > 0) {
    options.push(
      fc.tuple(skeleton, fc.constantFrom(...shape.required)).map(([obj, k]) => {
        const { [k]: _dropped, ...rest } = obj;
        return { value: rest, how: `without required ${k}`, touched: k };
      }),
    );
  }
  const typed = typedEverywhere(shape);
  if (typed.length > 0) {
    options.push(
      fc
        .tuple(skeleton, fc.constantFrom(...typed))
        .chain(([obj, [k, allowed]]) => wrongTypeValue(allowed)!.map((v) => ({ value: { ...obj, [k]: v }, how: `${k} of a wrong type: ${JSON.stringify(v).slice(0, 60)}`, touched: k }))),
    );
  }
  if (shape.closed) {
    options.push(
      fc.tuple(skeleton, fc.constantFrom(...UNKNOWN_KEYS.filter((k) => !shape.props.has(k))), valueOfType.string).map(([obj, k, v]) => {
        // A key named __proto__ must be an own property of the object that is stringified.
        const value = { ...obj };
        Object.defineProperty(value, k, { value: v, enumerable: true, configurable: true, writable: true });
        return { value, how: `with unknown field ${JSON.stringify(k.slice(0, 20))}`, touched: k };
      }),
    );
  }
  // A nested object that is itself invalid (its own mutation, one level down).
  // Only where that object can be made invalid and stay an object (else the filter below never passes).
  const nested = [...shape.objectProp].filter(([k, s]) => typed.some(([t]) => t === k) && breakableObject(shapeOf(resolve, s)));
  if (nested.length > 0 && depth < 2) {
    options.push(
      fc
        .tuple(skeleton, fc.constantFrom(...nested))
        .chain(([obj, [k, s]]) =>
          invalidValue(resolve, s, depth + 1)
            .filter((m) => m.value !== null && typeof m.value === 'object' && !Array.isArray(m.value))
            .map((m) => ({ value: { ...obj, [k]: m.value }, how: `${k}: ${m.how}`, touched: k })),
        ),
    );
  }
  return fc.oneof(...options);
}

/** Placeholders spliced into JSON text after JSON.stringify. */
const RAW = (i: number) => `@@hostile-raw-${i}@@`;

export interface Sizes {
  /** The body limit of the operation (bytes). */
  limit: number;
}

/** A value for a property that is neither the mutated nor a required one. */
function decorationValue(sizes: Sizes): fc.Arbitrary<{ raw?: string | Buffer; value?: Json; how: string }> {
  return fc.oneof(
    // Strings around the body limit: well under, just under, and over.
    fc.constantFrom(1000, sizes.limit - 4096, sizes.limit + 1).map((n) => ({ value: 'x'.repeat(Math.max(1, n)), how: `a string of ${n} characters` })),
    fc.integer({ min: 100, max: 10_000 }).chain((n) =>
      fc.constantFrom(
        { raw: '['.repeat(n) + ']'.repeat(n), how: `arrays nested ${n} deep` },
        { raw: '{"a":'.repeat(n) + '1' + '}'.repeat(n), how: `objects nested ${n} deep` },
      ),
    ),
    fc.constantFrom(10_000, 100_000).map((n) => ({ raw: `[${Array.from({ length: n }, (_, i) => i).join(',')}]`, how: `an array of ${n} distinct numbers` })),
    fc.constantFrom('1e309', '-1e309', '-0', '1e-400', '123456789012345678901234567890', '0.1e-999999999', '9007199254740993').map((raw) => ({ raw, how: `the number ${raw}` })),
    fc.constantFrom(Buffer.from([0x22, 0xff, 0xfe, 0x22]), Buffer.from([0x22, 0xc3, 0x28, 0x22]), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), Buffer.from([0x22, 0xf0, 0x28, 0x8c, 0x28, 0x22])).map((raw) => ({ raw, how: `a string of invalid UTF-8 ${raw.toString('hex')}` })),
    fc.constantFrom('"\\ud800"', '"\\u0000"', '"\\udfff\\ud800"', '"a\\u0000b"').map((raw) => ({ raw, how: `the string ${raw}` })),
    fc.constant({ raw: `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`, how: 'an object of 20,000 keys' }),
    fc.constant({ raw: `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`, how: 'a __proto__/constructor.prototype object' }),
  );
}

/** How the bytes reach the parser: the value's JSON, or text that is not JSON at all. */
const NOT_JSON: [string, string][] = [
  ['', 'an empty body'],
  ['   \n', 'whitespace'],
  ['{', 'a truncated object'],
  ['{"a":1,}', 'a trailing comma'],
  ["{'a':1}", 'single quotes'],
  ['{"a":NaN}', 'NaN'],
  ['{"a":Infinity}', 'Infinity'],
  ['{"a":01}', 'a leading zero'],
  ['{"a":0x10}', 'a hex number'],
  ['{"a":undefined}', 'undefined'],
  ['null', 'null'],
  ['"{}"', 'a JSON string of an object'],
  ['[{}]', 'an array of an object'],
  ['{}{}', 'two objects'],
  ['{"a":1}\u0000', 'a NUL after the object'],
  ['\ufeff[]', 'a BOM and an array'],
];

/**
 * A body `schema` refuses: a base mutation, up to three decorations on other properties (or at
 * the top level of an object that is not closed), or bytes that are not JSON.
 */
export function invalidBody(resolve: (s: Schema) => Schema, schema: Schema, sizes: Sizes): fc.Arbitrary<HostileBody> {
  const shape = shapeOf(resolve, schema);
  const notJson = fc.constantFrom(...NOT_JSON).map(([text, how]) => ({ how: [`not JSON: ${how}`], bytes: Buffer.from(text) }));
  const decorated = fc
    .tuple(invalidValue(resolve, schema), fc.array(fc.tuple(fc.constantFrom(...UNKNOWN_KEYS.slice(5), ...shape.props.keys()), decorationValue(sizes)), { maxLength: 3 }), fc.boolean())
    .map(([m, decorations, duplicate]) => {
      const how = [m.how];
      const raws: (string | Buffer)[] = [];
      let value = m.value;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        value = { ...value };
        for (const [key, d] of decorations) {
          // Never the mutated field, nor one whose absence is the mutation; a required field
          // may carry a decoration only when the schema is closed (then an unknown key invalidates too).
          if (key === m.touched || shape.required.has(key)) continue;
          if (d.raw !== undefined) {
            raws.push(d.raw);
            (value as Record<string, Json>)[key] = RAW(raws.length - 1);
          } else (value as Record<string, Json>)[key] = d.value!;
          how.push(`${key || '""'}: ${d.how}`);
        }
      }
      let text = JSON.stringify(value);
      // A duplicate key: JSON.parse keeps the last, so the first copy carries the invalid value.
      if (duplicate && m.touched !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, m.touched)) {
        text = `{${JSON.stringify(m.touched)}:"first",${text.slice(1)}`;
        how.push(`${JSON.stringify(m.touched)} twice, the invalid value last`);
      }
      const parts: Buffer[] = [];
      let at = 0;
      const re = /"@@hostile-raw-(\d+)@@"/g;
      for (let hit = re.exec(text); hit; hit = re.exec(text)) {
        parts.push(Buffer.from(text.slice(at, hit.index)));
        const raw = raws[Number(hit[1])]!;
        parts.push(typeof raw === 'string' ? Buffer.from(raw) : raw);
        at = hit.index + hit[0].length;
      }
      parts.push(Buffer.from(text.slice(at)));
      return { how, bytes: Buffer.concat(parts) };
    });
  return fc.oneof({ arbitrary: decorated, weight: 6 }, { arbitrary: notJson, weight: 1 });
}

/** Any body at all, for an operation that expects none or no JSON. */
export function junkBody(sizes: Sizes): fc.Arbitrary<HostileBody> {
  return fc.oneof<fc.Arbitrary<HostileBody>[]>(
    invalidBody(resolver({}), { type: 'object', properties: {}, additionalProperties: false }, sizes),
    fc.uint8Array({ maxLength: 512 }).map((a) => ({ how: [`${a.length} random bytes`], bytes: Buffer.from(a) })),
    fc.constant<HostileBody>({ how: ['a multipart form without a file'], bytes: Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n') }),
    fc.constant<HostileBody>({ how: ['a multipart form cut short'], bytes: Buffer.from('--x\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff') }),
  );
}

/** A value of a type no branch allows, chosen deterministically. */
function firstWrongValue(allowed: Set<JsonType>): Json {
  const order: [JsonType, Json][] = [['null', null], ['boolean', false], ['array', []], ['object', {}], ['string', ''], ['number', 1.5]];
  return order.find(([t]) => !allowed.has(t))![1];
}

/**
 * Deterministic cases: `depth` levels of nested arrays and of nested objects under each property
 * of the schema and under an unknown key, each in a body the schema refuses for another reason
 * (a required field left out, another field of a wrong type, or an unknown field of a closed
 * schema). Properties for which no such reason exists are left out.
 */
export function deepCases(resolve: (s: Schema) => Schema, schema: Schema, depth: number): HostileBody[] {
  const shape = shapeOf(resolve, schema);
  const typed = typedEverywhere(shape);
  const out: HostileBody[] = [];
  for (const key of [...shape.props.keys(), 'fuzz_unknown']) {
    let poison: Record<string, Json> | undefined;
    let why: string | undefined;
    const missing = [...shape.required].find((r) => r !== key);
    if (missing) {
      poison = {};
      why = `without required ${missing}`;
    } else {
      const other = typed.find(([t]) => t !== key);
      if (other) {
        poison = { [other[0]]: firstWrongValue(other[1]) };
        why = `${other[0]} of a wrong type`;
      } else if (shape.closed && key !== 'fuzz_unknown') {
        poison = { fuzz_unknown: 1 };
        why = 'with unknown field fuzz_unknown';
      }
    }
    if (!poison) continue;
    for (const [open, close, what] of [['[', ']', 'arrays'], ['{"a":', '}', 'objects']] as const) {
      const nest = open.repeat(depth) + (what === 'objects' ? '1' : '') + close.repeat(depth);
      const rest = JSON.stringify(poison).slice(1, -1);
      out.push({ how: [`${key}: ${what} nested ${depth} deep`, why!], bytes: Buffer.from(`{${JSON.stringify(key)}:${nest}${rest ? `,${rest}` : ''}}`) });
    }
  }
  return out;
}
