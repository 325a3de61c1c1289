import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { harness, type Harness } from '../../helpers/harness.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

/** A browser's top-level navigation: no key, Sec-Fetch-Mode navigate (the case that gets a login dialog). */
const navigate = (path: string) => h.app.request(path, { headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' } });

describe('the front door', () => {
  it('answers a browser at / with a landing page, not a login dialog', async () => {
    const res = await navigate('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const link of ['/docs', '/openapi.json', '/examples/stream/', '/health']) expect(html).toContain(`href="${link}"`);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it('serves the icon browsers ask for on their own, as a real ICO and an SVG', async () => {
    const ico = await navigate('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]); // reserved, type icon, one image
    const png = bytes.subarray(bytes.readUInt32LE(18));
    expect(png.length).toBe(bytes.readUInt32LE(14));
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 32, height: 32 });
    const svg = await navigate('/favicon.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toContain('<svg');
  });

  it('sends the stream example\'s other spellings to the page, whose script loads beside it', async () => {
    for (const path of ['/examples/stream', '/examples/stream/index.html']) {
      const res = await navigate(path);
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location')).toBe('/examples/stream/');
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
    expect((await navigate('/examples/stream/')).status).toBe(200);
  });

  it('still challenges a browser on a path that is not public', async () => {
    const res = await navigate('/nothing-here');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="mimic"');
    expect((await navigate('/animations')).status).toBe(401);
  });
});

describe('the API reference at /docs', () => {
  it('serves the page and every file it loads without a key, from this service only', async () => {
    const res = await navigate('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    // No other host: nothing absolute, nothing protocol-relative, anywhere in the page.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/(?:src|href)="\/\//);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith('/docs/assets/'));
    expect(assets).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/init.js']));
    for (const asset of assets) {
      const file = await navigate(asset);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('content-type'), asset).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect((await file.text()).length, asset).toBeGreaterThan(asset.includes('swagger-ui') ? 10_000 : 50);
    }
    // Swagger UI itself, not a copy of ours: the bundle defines the global the page starts.
    expect(await (await navigate('/docs/assets/swagger-ui-bundle.js')).text()).toContain('SwaggerUIBundle');
  });

  it('serves only the files of its table', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/index.html']) {
      expect((await navigate(path)).status, path).toBe(404);
    }
  });

  it('reads the document, whose operations are grouped by area in the README\'s order, and explains the deprecation', async () => {
    const init = await (await navigate('/docs/assets/init.js')).text();
    expect(init).toContain("fetch('/openapi.json')");
    const doc = (await h.call('GET', '/openapi.json')).body;
    const names = (doc.tags as { name: string }[]).map((t) => t.name);
    expect(names.slice(0, 3)).toEqual(['Animations', 'Clips', 'Talks']);
    expect(names.indexOf('Agents')).toBeLessThan(names.indexOf('Secrets'));
    expect(names.at(-1)).toBe('Service');
    const used = new Set(Object.values(doc.paths as Record<string, Record<string, { tags: string[] }>>).flatMap((m) => Object.values(m).map((op) => op.tags[0])));
    expect(new Set(names)).toEqual(used);
    const create = doc.paths['/animations'].post;
    expect(create.deprecated).toBe(true);
    expect(create.description).toMatch(/POST \/talks/);
    expect(create.description).toMatch(/POST \/clips/);
  });
});
