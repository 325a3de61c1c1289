import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiError } from '../errors.ts';
import { defineModule, type Route } from '../platform/module.ts';

/**
 * The browser example of live streams (examples/stream/), served at GET /examples/stream/ so
 * a new user opens it from the service they run (the trailing slash matters: the page loads
 * `app.js` and `stream.js` next to it; the studio's agent page serves stream.js too). Three fixed files read once at start: no path
 * from the request reaches the file system, nothing else is listed. The page holds no secret
 * (the user types the API key into it), so it is public; its Content-Security-Policy lets it
 * run only its own script and its one inline style block.
 */
const DIR = new URL('../../examples/stream/', import.meta.url);
const PREFIX = '/examples/stream';

/** The CSP of the example page: its own script, the style block whose hash is given, API calls and media anywhere the user points it. */
export function examplePolicy(styleHash: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src '${styleHash}'`,
    "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:",
    // The base URL field may name another mimic (CORS decides there); WebRTC itself is not fetch.
    "connect-src 'self' http: https: ws: wss:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

interface Page {
  html: string;
  script: string;
  /** stream.js: the WebRTC stream the page opens (app.js imports it). */
  stream: string;
  policy: string;
}

function readPage(): Page | undefined {
  let html: string;
  let script: string;
  let stream: string;
  try {
    html = readFileSync(new URL('index.html', DIR), 'utf8');
    script = readFileSync(new URL('app.js', DIR), 'utf8');
    stream = readFileSync(new URL('stream.js', DIR), 'utf8');
  } catch {
    return undefined; // an install without examples/: the routes answer 404
  }
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  const styleHash = `sha256-${createHash('sha256').update(style).digest('base64')}`;
  return { html, script, stream, policy: examplePolicy(styleHash) };
}

const HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' };

export function exampleRoutes(page: Page | undefined): Route[] {
  const common = { tag: 'Service', access: 'public', security: [] } as const;
  const served = (body: (p: Page) => string, type: string, extra: Record<string, string> = {}): Route['handler'] => (c) => {
    if (!page) throw new ApiError('NotFoundError', 'the examples are not installed with this service');
    return c.body(body(page), 200, { ...HEADERS, 'content-type': type, ...extra });
  };
  return [
    {
      ...common, method: 'get', path: `${PREFIX}/`, summary: 'A browser page that opens a live talk or agent stream (examples/stream/)',
      ok: { status: 200, description: 'an HTML page', contentType: 'text/html' },
      errors: ['NotFoundError'],
      handler: served((p) => p.html, 'text/html; charset=utf-8', page ? { 'content-security-policy': page.policy } : {}),
    },
    {
      ...common, method: 'get', path: `${PREFIX}/app.js`, summary: 'The example page\'s script',
      ok: { status: 200, description: 'a JavaScript module', contentType: 'text/javascript' },
      errors: ['NotFoundError'],
      handler: served((p) => p.script, 'text/javascript; charset=utf-8'),
    },
    {
      ...common, method: 'get', path: `${PREFIX}/stream.js`, summary: 'The example page\'s WebRTC stream module (app.js imports it)',
      ok: { status: 200, description: 'a JavaScript module', contentType: 'text/javascript' },
      errors: ['NotFoundError'],
      handler: served((p) => p.stream, 'text/javascript; charset=utf-8'),
    },
  ];
}

export const examplesModule = defineModule({
  name: 'examples',
  create: () => ({ routes: exampleRoutes(readPage()) }),
});
