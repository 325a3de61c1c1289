/**
 * The tool editor's JSON helpers (src/studio/assets/tool-schema.js, plain ES module, no DOM):
 * where a syntax error is, where a path sits in the text, and the fields "Try it" builds from
 * a parameters schema.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error a browser module without types
import { fieldsOf, locate, parseJson } from '../../src/studio/assets/tool-schema.js';

const TEXT = `{
  "type": "object",
  "properties": {
    "city": { "type": "strin", "description": "the \\"city\\", e.g. {x: [1]}" },
    "tags": { "type": "array", "items": [ {"type": "x"}, {"type":"y"} ] }
  },
  "required": ["city"]
}`;

describe('parseJson', () => {
  it('answers the value of a JSON text', () => {
    expect(parseJson('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it.each([
    ['{\n  "a": 1,\n}', 3, 1],
    ['{\n  "a": 1\n},', 3, 2],
    ['{\n  "a": tru\n}', 2, 11],
    ['[1,,2]', 1, 4],
    ['{"a": 1', 1, 8],
  ])('places the error in %j at line %i, column %i, with the reason apart', (text, line, column) => {
    const parsed = parseJson(text);
    expect(parsed).toMatchObject({ ok: false, line, column });
    expect(parsed.message).not.toMatch(/position|line \d/);
    expect(parsed.message.length).toBeGreaterThan(0);
  });
});

describe('locate', () => {
  it('finds a value by its path, through strings holding braces and escaped quotes', () => {
    expect(locate(TEXT, ['properties', 'city', 'type'])).toEqual({ offset: TEXT.indexOf('"strin"'), line: 4, column: 23 });
    expect(locate(TEXT, ['properties', 'tags', 'items', '1', 'type'])).toMatchObject({ offset: TEXT.indexOf('"y"'), line: 5 });
    expect(locate(TEXT, ['required', 0])).toMatchObject({ offset: TEXT.indexOf('"city"]'), line: 7 });
  });

  it('falls back to the longest part of the path that is there', () => {
    expect(locate(TEXT, ['properties', 'country', 'type'])).toMatchObject({ offset: TEXT.indexOf('{\n    "city"'), line: 3 });
    expect(locate(TEXT, [])).toEqual({ offset: 0, line: 1, column: 1 });
  });
});

describe('fieldsOf', () => {
  it('one field per top-level property, in order, by kind, with required and description', () => {
    const fields = fieldsOf({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'the city' },
        days: { type: 'integer' },
        ratio: { type: 'number' },
        metric: { type: 'boolean' },
        units: { type: 'string', enum: ['metric', 'imperial'] },
        where: { type: 'object' },
        anything: {},
      },
      required: ['city', 'units'],
    });
    expect(fields.map((f: { name: string; kind: string; required: boolean }) => [f.name, f.kind, f.required])).toEqual([
      ['city', 'string', true],
      ['days', 'integer', false],
      ['ratio', 'number', false],
      ['metric', 'boolean', false],
      ['units', 'enum', true],
      ['where', 'json', false],
      ['anything', 'json', false],
    ]);
    expect(fields[0].description).toBe('the city');
  });

  it('no properties, no fields', () => {
    expect(fieldsOf({ type: 'object' })).toEqual([]);
    expect(fieldsOf(null)).toEqual([]);
  });
});
