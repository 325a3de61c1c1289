import { describe, expect, it } from 'vitest';
import { checkParameters, parameterValidator, PARAMETERS_LIMITS } from '../../../src/tools/exec/parameters.ts';

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
