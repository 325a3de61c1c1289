import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 and publishes the same schema that validates requests', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    const op = doc.paths['/animations'].post;
    expect(op.deprecated).toBe(true);
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateAnimation' });
    const published = doc.components.schemas.CreateAnimation;
    const validating = JSON.parse(JSON.stringify(h.services.animations.schemas.CreateAnimation));
    expect(published.properties.source_url.pattern).toBe(validating.properties.source_url.pattern);
    expect(published.properties.user_data).toEqual(validating.properties.user_data);
    expect(published.additionalProperties).toBe(false);
    expect(doc.components.schemas.FaceSquare.required).toEqual(['size', 'top_left']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '402', '403', '413', '500']));
    expect(doc.components.schemas.JsonError.required).toEqual(['kind', 'description']);
  });

  it('every documented path answers (none is a dead entry)', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    const { key } = h.user();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!('get' in methods) || path.includes('{')) continue;
      const res = await h.call('GET', path, { key });
      expect(res.status, path).toBe(200);
    }
  });

  it('renders a browsable reference at /docs', async () => {
    const res = await h.app.request('/docs');
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('/animations');
    expect(html).toContain('CreateAnimation');
  });
});
