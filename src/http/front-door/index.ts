import { createHash } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import type { Route } from '../../platform/module.ts';
import { DOCS_ASSETS, DOCS_PAGE, docsPolicy } from './docs.ts';
import { ICON_SVG, iconIco } from './icon.ts';
import { LANDING_STYLE, landingPage } from './landing.ts';

/**
 * What a browser meets without a key: a landing page at `/`, the icon browsers ask for on
 * their own, the API reference and its assets, and the stream example's other spellings.
 * All public (they hold nothing of anyone's), so none of them answers with a login dialog.
 */
const HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
const CACHED = { ...HEADERS, 'cache-control': 'public, max-age=3600' };

export function frontDoorRoutes(publicUrl: string, version: string): Route[] {
  const common = { tag: 'Service', access: 'public', security: [] } as const;
  const landing = landingPage(version);
  const landingPolicy = `default-src 'none'; img-src 'self'; style-src 'sha256-${createHash('sha256').update(LANDING_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  let ico: Promise<Buffer> | undefined;
  const redirect = (path: string): Route => ({
    ...common, method: 'get', path, summary: 'Redirects to the live stream example at /examples/stream/',
    ok: { status: 301, description: 'a redirect to /examples/stream/' },
    handler: (c) => c.redirect('/examples/stream/', 301),
  });
  return [
    {
      ...common, method: 'get', path: '/', summary: 'A landing page: what this service is, links to the reference, the example and the health check',
      ok: { status: 200, description: 'an HTML page', contentType: 'text/html' },
      handler: (c) => c.body(landing, 200, { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': landingPolicy }),
    },
    {
      ...common, method: 'get', path: '/favicon.svg', summary: 'The service\'s icon (SVG)',
      ok: { status: 200, description: 'an SVG image', contentType: 'image/svg+xml' },
      handler: (c) => c.body(ICON_SVG, 200, { ...CACHED, 'content-type': 'image/svg+xml' }),
    },
    {
      ...common, method: 'get', path: '/favicon.ico', summary: 'The service\'s icon (ICO, 32x32)',
      ok: { status: 200, description: 'an ICO image', contentType: 'image/x-icon' },
      handler: async (c) => c.body(new Uint8Array(await (ico ??= iconIco())), 200, { ...CACHED, 'content-type': 'image/x-icon' }),
    },
    {
      ...common, method: 'get', path: '/docs', summary: 'The API reference: this document rendered by Swagger UI, with "try it"',
      ok: { status: 200, description: 'an HTML page', contentType: 'text/html' },
      handler: (c) => c.body(DOCS_PAGE, 200, { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': docsPolicy(publicUrl) }),
    },
    {
      ...common, method: 'get', path: '/docs/assets/{file}', summary: 'A file of the API reference page (Swagger UI, served from this service)',
      params: [{ name: 'file', in: 'path', description: 'swagger-ui.css, swagger-ui-bundle.js, init.js or page.css' }],
      ok: { status: 200, description: 'a script or a style sheet', contentType: 'text/javascript' },
      errors: ['NotFoundError'],
      handler: (c) => {
        const file = c.req.param('file') ?? '';
        const asset = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined;
        if (!asset) throw new ApiError('NotFoundError', 'no such file in the API reference');
        return c.body(asset.body(), 200, { ...CACHED, 'content-type': asset.type });
      },
    },
    // The example page loads `app.js` next to it, so it lives at the path with the slash.
    redirect('/examples/stream'),
    redirect('/examples/stream/index.html'),
  ];
}
