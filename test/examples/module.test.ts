/**
 * GET /examples/stream/: the browser example served by the service, public, its two files
 * only, with a Content-Security-Policy that allows its own script and its style block.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { Hono } from 'hono';
import { exampleRoutes } from '../../src/examples/module.ts';
import { errorHandler } from '../../src/http/errors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { ROOT } from '../helpers/cli.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(async () => {
  await h.close();
});

const file = (name: string) => readFileSync(`${ROOT}examples/stream/${name}`, 'utf8');

describe('GET /examples/stream/', () => {
  it('serves the page without a key, with a policy that runs only its own script and style', async () => {
    const res = await h.call('GET', '/examples/stream/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.body).toBe(file('index.html'));
    const style = /<style>([\s\S]*?)<\/style>/.exec(file('index.html'))![1]!;
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each(['app.js', 'stream.js'])('serves its script %s', async (name) => {
    const js = await h.call('GET', `/examples/stream/${name}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.body).toBe(file(name));
  });

  it('lists nothing and serves no other file (an unknown path is behind the key)', async () => {
    // `/examples/stream` and `.../index.html` redirect to the page (test/http/front-door).
    for (const path of ['/examples/', '/examples/stream/README.md', '/examples/stream/../../package.json', '/examples/stream/%2e%2e/%2e%2e/package.json', '/examples/animate.ts']) {
      const res = await h.call('GET', path);
      expect(res.status, path).toBe(401);
    }
  });

  it('answers 404 when the service was installed without the examples', async () => {
    const bare = new Hono<AppEnv>();
    bare.onError(errorHandler(h.services.log));
    for (const r of exampleRoutes(undefined)) bare.get(r.path, r.handler);
    expect((await bare.request('/examples/stream/')).status).toBe(404);
    expect((await bare.request('/examples/stream/app.js')).status).toBe(404);
  });
});
