import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { harness, type Harness } from '../helpers/harness.ts';
import { buildApp } from '../../src/server.ts';

/** Mounted routes the document does not list, and documented ones nothing serves. */
function mismatches(app: Harness['app'], doc: { paths: Record<string, Record<string, unknown>> }) {
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)));
  const mounted = app.routes
    .filter((r) => r.method !== 'ALL')
    // The router's form (`:id`, a `/media/*` tail) in OpenAPI's form (`{id}`, `{path}`).
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`);
  return { mounted, undocumented: [...new Set(mounted)].filter((r) => !documented.has(r)), dead: [...documented].filter((r) => !mounted.includes(r)) };
}

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
    const validating = JSON.parse(JSON.stringify(h.services.modules.animations.deps.schemas.CreateAnimation));
    expect(published.properties.source_url.pattern).toBe(validating.properties.source_url.pattern);
    expect(published.properties.user_data).toEqual(validating.properties.user_data);
    expect(published.additionalProperties).toBe(false);
    expect(doc.components.schemas.FaceSquare.required).toEqual(['size', 'top_left']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '402', '403', '413', '500']));
    expect(doc.components.schemas.JsonError.required).toEqual(['kind', 'description']);
    // Every method with a body has the body limit, a stream's DELETE too; GET has none.
    expect(doc.paths['/talks/streams/{streamId}'].delete.responses['413'].description).toBe('PayloadTooLargeError');
    expect(doc.paths['/animations/{id}'].get.responses['413']).toBeUndefined();
  });

  it('publishes a body as required only where leaving it out is refused', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.paths['/animations'].post.requestBody.required).toBe(true);
    // These handlers read no body as {} (the hosted clients send a chat start and a stream's DELETE without one).
    expect(doc.paths['/agents/{agentId}/chat'].post.requestBody.required).toBe(false);
    expect(doc.paths['/talks/streams/{streamId}'].delete.requestBody.required).toBe(false);
    expect(doc.paths['/clips/streams/{streamId}/interrupt'].post.requestBody.required).toBe(false);
    const { key } = h.user();
    const none = await h.call('POST', '/animations', { key });
    expect(none.status).toBe(400);
  });

  it('every documented path answers (none is a dead entry)', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    const { key } = h.user();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!('get' in methods) || path.includes('{')) continue;
      let res = await h.call('GET', path, { key });
      // A redirect counts when where it points answers (the studio: /studio -> /studio/ -> its sign-in page).
      const hops = [path];
      for (let location = res.headers.get('location'); [301, 302, 303].includes(res.status) && location && hops.length < 4; location = res.headers.get('location')) {
        hops.push(location);
        res = await h.call('GET', location, { key });
      }
      expect(res.status, hops.join(' -> ')).toBe(200);
    }
  });

  it('is a valid OpenAPI 3.1 document (checked by a maintained validator), with and without the compute routes', async () => {
    const remote = harness({ MIMIC_COMPUTE_BACKEND: 'remote' });
    try {
      for (const app of [h, remote]) {
        const doc = (await app.call('GET', '/openapi.json')).body;
        const result = await new Validator().validate(doc);
        expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
        expect(result.valid).toBe(true);
      }
      // The validator does reject a broken document.
      const broken = (await h.call('GET', '/openapi.json')).body;
      broken.paths['/health'].get.responses = 'none';
      expect((await new Validator().validate(broken)).valid).toBe(false);
    } finally {
      await remote.close();
    }
  });

  it('lists every mounted route (a route missing from the document fails here)', async () => {
    const remote = harness({ MIMIC_COMPUTE_BACKEND: 'remote' });
    try {
      for (const app of [h, remote]) {
        const doc = (await app.call('GET', '/openapi.json')).body;
        const { mounted, undocumented, dead } = mismatches(app.app, doc);
        expect(mounted.length).toBeGreaterThan(20);
        expect(undocumented).toEqual([]);
        expect(dead).toEqual([]);
      }
      expect(remote.app.routes.some((r) => r.path.startsWith('/compute/v1/'))).toBe(true);
      // A route mounted by hand, outside the module list, is caught.
      const handMade = buildApp(h.services);
      handMade.get('/hand-mounted', (c) => c.text('x'));
      const doc = (await h.call('GET', '/openapi.json')).body;
      expect(mismatches(handMade, doc).undocumented).toEqual(['GET /hand-mounted']);
    } finally {
      await remote.close();
    }
  });

  it('serves a reference at /docs that renders this document', async () => {
    const res = await h.app.request('/docs');
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('/docs/assets/init.js');
    expect(await (await h.app.request('/docs/assets/init.js')).text()).toContain('/openapi.json');
  });
});
