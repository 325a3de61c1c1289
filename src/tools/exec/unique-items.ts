import type { FuncKeywordDefinition } from 'ajv';

/**
 * `uniqueItems` in linear time. Ajv's own keyword compares every pair of items with a deep
 * equality unless the schema says the items are scalars: 40,000 distinct objects (469 KB)
 * took 23 s and a 1 MiB array about two minutes, with the event loop blocked throughout.
 * Here each item is written once as canonical JSON (object keys sorted) and looked up in a
 * map, which is JSON Schema's equality: same type and value, objects key by key whatever
 * the order, arrays item by item (JSON numbers: 1 and 1.0 are the same value).
 */
export const uniqueItems: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: function unique(schema: boolean, data: unknown[]) {
    const self = unique as typeof unique & { errors?: unknown[] };
    self.errors = [];
    if (!schema) return true;
    const seen = new Map<string, number>();
    for (let j = 0; j < data.length; j++) {
      const text = canonicalJson(data[j]);
      const i = seen.get(text);
      if (i !== undefined) {
        self.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${i} and ${j} are identical)`, params: { i, j } }];
        return false;
      }
      seen.set(text, j);
    }
    return true;
  },
};

/**
 * JSON text with object keys sorted, written without recursion (input nesting is not
 * bounded by the schema here, and a deep array must not overflow the stack).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Marker) {
      out.push(v.text);
    } else if (Array.isArray(v)) {
      out.push('[');
      stack.push(CLOSE_ARRAY);
      for (let k = v.length - 1; k >= 0; k--) {
        stack.push(v[k]);
        if (k > 0) stack.push(COMMA);
      }
    } else if (typeof v === 'object' && v !== null) {
      out.push('{');
      stack.push(CLOSE_OBJECT);
      const keys = Object.keys(v).sort();
      for (let k = keys.length - 1; k >= 0; k--) {
        stack.push((v as Record<string, unknown>)[keys[k]!], new Marker(`${JSON.stringify(keys[k])}:`));
        if (k > 0) stack.push(COMMA);
      }
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}

class Marker {
  constructor(readonly text: string) {}
}
const COMMA = new Marker(',');
const CLOSE_ARRAY = new Marker(']');
const CLOSE_OBJECT = new Marker('}');
