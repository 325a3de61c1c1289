import { describe, expect, it } from 'vitest';
import { checkParameters, parameterValidator, PARAMETERS_LIMITS } from '../../../src/tools/exec/parameters.ts';
import { VALIDATION_LIMITS } from '../../../src/tools/exec/validation-work.ts';

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    days: { type: 'integer', minimum: 1 },
    contact: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    where: { type: 'object', required: ['lat'], properties: { lat: { type: 'number' } } },
  },
  required: ['city'],
  additionalProperties: false,
};

/** An object schema nested `levels` objects deep, counting the root (`not` adds one level each). */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 2; i < levels; i++) schema = { not: schema };
  return { type: 'object', not: schema };
}

describe('checkParameters', () => {
  it.each([
    ['a plain object schema', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }],
    ['a rich schema', weather],
    ['an empty object schema', { type: 'object' }],
    ['local $ref to definitions and $defs', { type: 'object', properties: { a: { $ref: '#/definitions/d' }, b: { $ref: '#/$defs/e' } }, definitions: { d: { type: 'string' } }, $defs: { e: { type: 'number' } } }],
    ['the draft-07 $schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }],
    ['an $id (kept apart from every other schema)', { $id: 'https://example.com/weather', type: 'object' }],
    ['annotations and union types', { type: 'object', title: 'T', description: 'd', $comment: 'c', properties: { a: { type: ['string', 'null'], example: 'x', examples: ['x'], default: 'x' } } }],
    ['a pattern of the maximum length', { type: 'object', properties: { a: { type: 'string', pattern: 'a'.repeat(PARAMETERS_LIMITS.maxPatternLength) } } }],
  ])('accepts %s', (_, schema) => {
    expect(checkParameters(schema)).toEqual({ ok: true });
  });

  it.each([
    ['null', null, 'schema.parameters', /JSON Schema object/],
    ['an array', [{ type: 'object' }], 'schema.parameters', /JSON Schema object/],
    ['a string', 'object', 'schema.parameters', /JSON Schema object/],
    ['a root that is not an object type', { type: 'string' }, 'schema.parameters.type', /must be "object"/],
    ['a root without type', { properties: {} }, 'schema.parameters.type', /must be "object"/],
    ['a root that may also be null', { type: ['object', 'null'] }, 'schema.parameters.type', /must be "object"/],
  ])('refuses %s', (_, schema, field, message) => {
    const result = checkParameters(schema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details[0]).toMatchObject({ field });
    expect(result.details[0]!.message).toMatch(message);
  });

  it('names the field of a misspelled type and lists the allowed ones', () => {
    const result = checkParameters({ type: 'object', properties: { city: { type: 'strng' } } });
    expect(result).toMatchObject({ ok: false });
    if (result.ok) return;
    expect(result.details).toContainEqual({
      field: 'schema.parameters.properties.city.type',
      message: 'must be one of ["array","boolean","integer","null","number","object","string"]',
    });
  });

  it('reports meta-schema violations at their path', () => {
    const result = checkParameters({ type: 'object', required: 'city', properties: { n: { type: 'integer', minimum: 'one' } } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields = result.details.map((d) => d.field);
    expect(fields).toContain('schema.parameters.required');
    expect(fields).toContain('schema.parameters.properties.n.minimum');
  });

  it.each([
    ['an unresolvable local $ref', { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }, /does not compile: can't resolve reference #\/definitions\/missing/],
    ['an unknown format', { type: 'object', properties: { a: { type: 'string', format: 'emial' } } }, /unknown format "emial"/],
    ['an unknown keyword (a typo)', { type: 'object', requird: ['a'] }, /unknown keyword: "requird"/],
    ['an invalid regular expression', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, /Invalid regular expression/],
  ])('refuses %s with the compiler reason', (_, schema, reason) => {
    const result = checkParameters(schema);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details[0]!.field).toBe('schema.parameters');
    expect(result.details[0]!.message).toMatch(reason);
  });

  it.each([
    ['http://evil.example/schema.json'],
    ['https://json-schema.org/draft-07/schema'],
    ['other.json#/definitions/x'],
    ['//evil.example/x'],
    ['file:///etc/passwd'],
  ])('refuses the remote $ref %s', (ref) => {
    const result = checkParameters({ type: 'object', properties: { a: { $ref: ref } } });
    expect(result).toEqual({
      ok: false,
      details: [{ field: 'schema.parameters.properties.a.$ref', message: 'must be a local reference starting with # (remote references are not fetched)' }],
    });
  });

  it('refuses a $schema other than draft-07', () => {
    expect(checkParameters({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' })).toEqual({
      ok: false,
      details: [{ field: 'schema.parameters.$schema', message: 'must be the draft-07 meta-schema URI or be left out' }],
    });
  });

  it('refuses a schema over the size limit', () => {
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(20) }]));
    const result = checkParameters({ type: 'object', properties });
    expect(result).toEqual({ ok: false, details: [{ field: 'schema.parameters', message: `must be at most ${64 * 1024} bytes of JSON` }] });
  });

  it('counts bytes, not characters, towards the size limit', () => {
    // 30,000 three-byte characters: under the limit in characters, over it in UTF-8.
    const result = checkParameters({ type: 'object', description: '€'.repeat(30_000) });
    expect(result.ok).toBe(false);
  });

  it('refuses nesting beyond the depth limit, and accepts it at the limit', () => {
    expect(checkParameters(nested(PARAMETERS_LIMITS.maxDepth))).toEqual({ ok: true });
    expect(checkParameters(nested(PARAMETERS_LIMITS.maxDepth + 1))).toEqual({
      ok: false,
      details: [{ field: 'schema.parameters', message: 'must nest at most 32 levels deep' }],
    });
  });

  it('survives a pathologically deep value without overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(checkParameters({ type: 'object', default: deep }).ok).toBe(false);
  });

  it('refuses long patterns and patternProperties keys', () => {
    const long = 'a'.repeat(PARAMETERS_LIMITS.maxPatternLength + 1);
    const result = checkParameters({ type: 'object', properties: { a: { type: 'string', pattern: long } }, patternProperties: { [long]: { type: 'string' } } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.details).toEqual(
      expect.arrayContaining([
        { field: 'schema.parameters.properties.a.pattern', message: 'must be at most 1000 characters' },
        { field: 'schema.parameters.patternProperties', message: 'must have patterns of at most 1000 characters' },
      ]),
    );
  });

  it.each([['#address'], ['#a.b-c:d_1']])('accepts a plain-name $id %s below the root', (id) => {
    expect(checkParameters({ type: 'object', properties: { a: { $ref: id } }, definitions: { x: { $id: id, type: 'string' } } })).toEqual({ ok: true });
  });

  it.each([['https://example.com/other'], ['other.json'], ['#/definitions/x']])('refuses the $id %s below the root, naming it', (id) => {
    const result = checkParameters({ type: 'object', definitions: { x: { $id: id, type: 'string' } } });
    expect(result).toEqual({ ok: false, details: [{ field: 'schema.parameters.definitions.x.$id', message: expect.stringMatching(/plain-name fragment/) }] });
  });

  it('refuses more than 1000 anyOf and oneOf branches in all, naming the list that crosses the limit', () => {
    const branches = (n: number) => Array.from({ length: n }, (_, i) => ({ required: [`p${i}`] }));
    expect(checkParameters({ type: 'object', anyOf: branches(PARAMETERS_LIMITS.maxBranches) })).toEqual({ ok: true });
    // 2000 branches compiled, then overflowed the stack on the first call.
    expect(checkParameters({ type: 'object', anyOf: branches(2000) })).toEqual({
      ok: false,
      details: [{ field: 'schema.parameters.anyOf', message: 'brings the anyOf and oneOf branches of the schema over 1000' }],
    });
    expect(checkParameters({ type: 'object', anyOf: branches(600), properties: { a: { oneOf: branches(600) } } }).ok).toBe(false);
  });

  it('does not mistake a property named like a keyword for the keyword', () => {
    expect(checkParameters({ type: 'object', properties: { $ref: { type: 'string' }, pattern: { type: 'string' } }, required: ['$ref', 'pattern'] })).toEqual({ ok: true });
  });
});

describe('parameterValidator', () => {
  it('accepts valid input', () => {
    const validate = parameterValidator('weather@1', weather);
    expect(validate({ city: 'Lisbon', units: 'metric', days: 3, contact: 'a@example.com', tags: ['x'], where: { lat: 1.5 } })).toEqual([]);
  });

  it('names each invalid field under input, with the missing property for required', () => {
    const validate = parameterValidator('weather@2', weather);
    const errors = validate({ units: 'kelvin', days: 1.5, contact: 'nope', tags: ['a', 2], where: {}, extra: true });
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'input.city', message: 'is required' },
        { field: 'input.units', message: 'must be one of ["metric","imperial"]' },
        { field: 'input.days', message: 'must be integer' },
        { field: 'input.contact', message: 'must be a valid email' },
        { field: 'input.tags.1', message: 'must be string' },
        { field: 'input.where.lat', message: 'is required' },
        { field: 'input.extra', message: 'is not an allowed field' },
      ]),
    );
    expect(errors).toHaveLength(7);
  });

  it('reports a non-object input at input itself', () => {
    expect(parameterValidator('weather@3', weather)('Lisbon')).toEqual([{ field: 'input', message: 'must be object' }]);
  });

  it('does not coerce, default or strip the input', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', default: 5 }, s: { type: 'string' } } };
    const validate = parameterValidator('plain@1', schema);
    const input = { s: 'x', other: 1 };
    expect(validate(input)).toEqual([]);
    expect(input).toEqual({ s: 'x', other: 1 });
    expect(validate({ n: '5' })).toEqual([{ field: 'input.n', message: 'must be integer' }]);
  });

  it('compiles once per key, so a new key is needed to see a new schema', () => {
    const v1 = parameterValidator('tool-1@2024-01-01', { type: 'object', required: ['a'] });
    const again = parameterValidator('tool-1@2024-01-01', { type: 'object', required: ['b'] });
    const v2 = parameterValidator('tool-1@2024-01-02', { type: 'object', required: ['b'] });
    expect(v1({})).toEqual([{ field: 'input.a', message: 'is required' }]);
    expect(again({})).toEqual([{ field: 'input.a', message: 'is required' }]);
    expect(v2({})).toEqual([{ field: 'input.b', message: 'is required' }]);
  });

  it('keeps schemas with the same $id apart', () => {
    const a = parameterValidator('id-a', { $id: 'https://example.com/s', type: 'object', required: ['a'] });
    const b = parameterValidator('id-b', { $id: 'https://example.com/s', type: 'object', required: ['b'] });
    expect(a({ b: 1 })).toEqual([{ field: 'input.a', message: 'is required' }]);
    expect(b({ a: 1 })).toEqual([{ field: 'input.b', message: 'is required' }]);
  });

  it('evicts the least recently used validator beyond 1000 keys', () => {
    const first = parameterValidator('lru-first', { type: 'object', required: ['a'] });
    for (let i = 0; i < 1000; i++) parameterValidator(`lru-${i}`, { type: 'object' });
    // The first key was evicted, so it compiles the schema it is given now.
    expect(parameterValidator('lru-first', { type: 'object', required: ['b'] })({})).toEqual([{ field: 'input.b', message: 'is required' }]);
    expect(first({})).toEqual([{ field: 'input.a', message: 'is required' }]);
  });

  it('caps the number of reasons', () => {
    const properties = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const validate = parameterValidator('many', { type: 'object', properties, required: Object.keys(properties) });
    expect(validate({})).toHaveLength(20);
  });

  it('reports a oneOf failure by its branches', () => {
    const validate = parameterValidator('one-of', { type: 'object', properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } } });
    expect(validate({ v: true })).toEqual([
      { field: 'input.v', message: 'must be string' },
      { field: 'input.v', message: 'must be number' },
    ]);
  });
});

/** `levels` definitions, each a `combinator` of two references to the next: 2^levels paths to the last. */
function doubling(levels: number, combinator: 'allOf' | 'anyOf' | 'oneOf'): Record<string, unknown> {
  const definitions: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
  for (let i = levels - 1; i >= 0; i--) definitions[`d${i}`] = { [combinator]: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  return { type: 'object', properties: { x: { $ref: '#/definitions/d0' } }, definitions };
}

const node = { type: 'object', properties: { v: { type: 'integer' }, left: { $ref: '#/definitions/node' }, right: { $ref: '#/definitions/node' } } };
const tree = { type: 'object', properties: { root: { $ref: '#/definitions/node' } }, definitions: { node } };

describe('the work of validating one input', () => {
  const tooMuch = { field: 'input', message: expect.stringMatching(/^is too large for this tool's schema: validating it would take more than 1000000 steps/) };

  it('checks uniqueItems on 40,000 distinct objects, and finds a copy of the first after them', () => {
    const validate = parameterValidator('unique-objects', { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } });
    const xs = Array.from({ length: 40_000 }, (_, i) => ({ k: i, tags: [i, `t${i}`] }));
    expect(validate({ xs })).toEqual([]);
    expect(validate({ xs: [...xs, { tags: [0, 't0'], k: 0 }] })).toEqual([{ field: 'input.xs', message: 'must NOT have duplicate items (items ## 0 and 40000 are identical)' }]);
  });

  it.each([
    ['objects whatever the key order', [{ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }], false],
    ['1 and 1.0', [1, 1.0], false],
    ['equal strings', ['x', 'y', 'x'], false],
    ['a number and its string', [1, '1'], true],
    ['null and the string null', [null, 'null'], true],
    ['arrays in another order', [[1, 2], [2, 1]], true],
    ['an object and an array', [{}, []], true],
    ['false and 0', [false, 0], true],
  ])('uniqueItems: %s', (_, xs, unique) => {
    const validate = parameterValidator('unique-semantics', { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } });
    expect(validate({ xs })).toHaveLength(unique ? 0 : 1);
  });

  it.each([['allOf', 30], ['anyOf', 24], ['oneOf', 24]] as const)('refuses %s of two references, %i levels deep, before validating', (combinator, levels) => {
    // 2^levels subschemas applied to one string: an anyOf of 24 levels ran out of memory.
    expect(parameterValidator(`doubling-${combinator}`, doubling(levels, combinator))({ x: 1 })).toEqual([tooMuch]);
  });

  it('still validates a few levels of such references', () => {
    const validate = parameterValidator('doubling-small', doubling(4, 'anyOf'));
    expect(validate({ x: 'a' })).toEqual([]);
    expect(validate({ x: 1 })).toEqual([{ field: 'input.x', message: 'must be string' }]);
  });

  it('refuses a wide schema times a long input', () => {
    const anyOf = Array.from({ length: PARAMETERS_LIMITS.maxBranches }, (_, i) => ({ required: [`p${i}`] }));
    const validate = parameterValidator('wide', { type: 'object', properties: { xs: { type: 'array', items: { anyOf } } } });
    expect(validate({ xs: Array.from({ length: 50_000 }, () => ({})) })).toEqual([tooMuch]);
    expect(validate({ xs: [{ p999: 1 }] })).toEqual([]);
  });

  it.each([
    ['2000 properties names on every object', { type: 'object', properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string' }])) }, {}],
    ['an enum of 3000 strings on every item', { enum: Array.from({ length: 3000 }, (_, i) => `v${i}`) }, 'v2999'],
  ])('counts %s, which Ajv checks whatever the value holds', (_, items, item) => {
    const validate = parameterValidator(`names-${JSON.stringify(item)}`, { type: 'object', properties: { xs: { type: 'array', items } } });
    expect(validate({ xs: new Array(100_000).fill(item) })).toEqual([tooMuch]);
    expect(validate({ xs: new Array(100).fill(item) })).toEqual([]);
  });

  it('lets a 1 MiB input of an ordinary schema through', () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: 'integer', minimum: 0 }]));
    const validate = parameterValidator('ordinary', { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties, required: ['p0', 'p1'], additionalProperties: false } } } });
    const row = Object.fromEntries(Object.keys(properties).map((k, i) => [k, i]));
    const rows = new Array(7000).fill(row);
    expect(JSON.stringify({ rows }).length).toBeGreaterThan(1_000_000);
    expect(validate({ rows })).toEqual([]);
  });

  it('follows a recursive schema as deep as the input goes, up to the limit', () => {
    const validate = parameterValidator('tree', tree);
    const grow = (levels: number): unknown => (levels === 0 ? { v: 0 } : { v: levels, left: grow(levels - 1), right: grow(levels - 1) });
    // 65,535 nodes: linear work, the two references apply to different values.
    expect(validate({ root: grow(15) })).toEqual([]);
    let deep: unknown = { v: 0 };
    for (let i = 0; i < VALIDATION_LIMITS.maxDepth - 2; i++) deep = { left: deep };
    expect(validate({ root: deep })).toEqual([]);
    for (let i = 0; i < 100_000; i++) deep = { left: deep };
    expect(validate({ root: deep })).toEqual([{ field: 'input', message: 'nests deeper than 256 levels into this tool\'s recursive schema' }]);
  });

  it('keeps every reason for a large input when the schema cannot compile to stop at the first', () => {
    // 2000 properties on one object: compiled without allErrors, Ajv's nested checks overflowed the stack.
    const properties = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const schema = { type: 'object', properties: { xs: { type: 'array', items: { type: 'object', properties } } } };
    expect(checkParameters(schema)).toEqual({ ok: true });
    const validate = parameterValidator('wide-object', schema);
    // 1000 objects: over the steps that keep every reason (2000 names each), under the limit.
    const xs = Array.from({ length: 1000 }, () => ({ p0: 'a' }));
    expect(validate({ xs })).toEqual([]);
    xs[7] = { p0: 1 } as never;
    xs[9] = { p0: 2 } as never;
    expect(validate({ xs })).toEqual([
      { field: 'input.xs.7.p0', message: 'must be string' },
      { field: 'input.xs.9.p0', message: 'must be string' },
    ]);
  });

  it('reports the first reason only for a large input', () => {
    const validate = parameterValidator('large', { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } });
    expect(validate({ xs: [1, 2, 3] })).toHaveLength(3);
    expect(validate({ xs: new Array(500_000).fill(0) })).toEqual([{ field: 'input.xs.0', message: 'must be string' }]);
  });
});
