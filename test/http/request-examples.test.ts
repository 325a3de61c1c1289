import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { REQUEST_EXAMPLES } from '../../src/http/request-examples.ts';
import { validate } from '../../src/schemas/ajv.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

describe('the request examples of the reference', () => {
  it('each names a documented operation, is published there, and passes the schema that validates its requests', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    for (const [key, example] of Object.entries(REQUEST_EXAMPLES)) {
      const [method, path] = key.split(' ') as [string, string];
      const route = h.services.routes.find((r) => r.method === method.toLowerCase() && r.path === path);
      expect(route?.body, key).toBeDefined();
      expect(() => validate(route!.body!, example), key).not.toThrow();
      expect(doc.paths[path][method.toLowerCase()].requestBody.content['application/json'].example, key).toEqual(example);
    }
  });
});
