import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The API reference at /docs: Swagger UI (swagger-ui-dist, from npm) renders /openapi.json.
 * Its files are served by mimic from node_modules under /docs/assets/, so the page works
 * offline and names no other host. A fixed table maps asset names to files: no path from
 * the request reaches the file system.
 */
const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Starts Swagger UI on the document. "Try it" sends requests to the origin the page came
 * from (listed first among the servers), whatever MIMIC_PUBLIC_URL says, so a reference
 * opened on another port or host still reaches the service that served it.
 */
const INIT = `"use strict";
fetch('/openapi.json').then((r) => r.json()).then((spec) => {
  const servers = (spec.servers || []).filter((s) => s.url !== location.origin);
  spec.servers = [{ url: location.origin, description: 'the service that served this page' }, ...servers];
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    filter: true,
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayRequestDuration: true,
    showExtensions: false,
    validatorUrl: null,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE_STYLE = 'body{margin:0}.topbar-mimic{display:flex;align-items:center;gap:.6em;padding:.7em 1.4em;background:#1d2733;color:#fff;font:600 18px system-ui,sans-serif}'
  + '.topbar-mimic img{width:28px;height:28px}.topbar-mimic a{color:#cfe3ff;font-weight:400;font-size:14px;margin-left:1.2em}.topbar-mimic a:first-of-type{margin-left:auto}';

export const DOCS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mimic API reference</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="stylesheet" href="/docs/assets/page.css">
</head><body>
<div class="topbar-mimic"><img src="/favicon.svg" alt="">mimic API reference<a href="/openapi.json">/openapi.json</a><a href="/">home</a></div>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;

interface Asset {
  type: string;
  body: () => string;
}

const fromDist = (file: string) => {
  let text: string | undefined;
  return () => (text ??= readFileSync(join(DIST, file), 'utf8'));
};

export const DOCS_ASSETS: Readonly<Record<string, Asset>> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: fromDist('swagger-ui.css') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: fromDist('swagger-ui-bundle.js') },
  'init.js': { type: 'text/javascript; charset=utf-8', body: () => INIT },
  'page.css': { type: 'text/css; charset=utf-8', body: () => PAGE_STYLE },
};

/** The reference's CSP: its own scripts and styles (Swagger UI sets inline styles), calls to this origin and the public URL. */
export function docsPolicy(publicUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(publicUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
