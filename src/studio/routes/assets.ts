import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type { Hono } from 'hono';
import type { StudioEnv } from './env.ts';

/**
 * The studio's scripts and style sheet (src/studio/assets/), read once and served from
 * memory under content-hashed names (`api.3f9a0c1d2e4b.js`), cached for a year as
 * immutable: a changed file is a new name. No bundler: a script's `import './x.js'` is
 * rewritten to x's hashed name, so a module and what it imports change names together.
 */
export interface StudioAsset {
  /** The file's own name (`keys.js`). */
  name: string;
  /** Where it is served (`/studio/assets/keys.<hash>.js`). */
  path: string;
  type: string;
  body: Uint8Array<ArrayBuffer>;
}

const ASSET_DIR = new URL('../assets/', import.meta.url);
/**
 * Modules the studio shares with a page outside it, served as if they were in assets/: the
 * WebRTC stream of examples/stream/ (the agent page talks to an agent as that example does).
 */
const SHARED_ASSETS: Readonly<Record<string, URL>> = { 'stream.js': new URL('../../../examples/stream/stream.js', import.meta.url) };
const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };
/** A relative import of a sibling module: `from './api.js'`, `import './x.js'`, `import('./x.js')`. */
const SIBLING_IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])\.\/([\w-]+\.js)\2/g;
export const ASSET_PREFIX = '/studio/assets/';

/**
 * The few files of npm packages the studio serves as its own assets, by the name a script
 * imports them under (`import('./hls.js')`) and their path as the package exports it. Only
 * these, read from node_modules at the first use and hashed like the rest, so no page loads a
 * script from anywhere but mimic. Each must run under the studio's CSP: no eval, no inline
 * script, no HTML sink (Trusted Types), no worker from a blob.
 */
export const VENDOR_ASSETS: Readonly<Record<string, string>> = {
  // hls.js's light ES module build (no subtitles, alternate audio or DRM: a render has none):
  // plays a render's pending_url, an HLS playlist, where the browser cannot by itself.
  'hls.js': 'hls.js/dist/hls.light.min.mjs',
};
/** A `//# sourceMappingURL=` line: cut from vendor files, whose maps are not served. */
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=\S+\s*$/;

function readVendor(spec: string): Buffer {
  const text = readFileSync(createRequire(import.meta.url).resolve(spec), 'utf8');
  return Buffer.from(text.replace(SOURCE_MAP_COMMENT, '\n'));
}

export function loadStudioAssets(
  dir: URL = ASSET_DIR,
  vendor: Readonly<Record<string, string>> = VENDOR_ASSETS,
  shared: Readonly<Record<string, URL>> = SHARED_ASSETS,
): Map<string, StudioAsset> {
  const sources = new Map<string, Buffer>(readdirSync(dir).filter((n) => TYPES[extname(n)]).map((n) => [n, readFileSync(new URL(n, dir))]));
  for (const [name, spec] of Object.entries(vendor)) {
    if (sources.has(name)) throw new Error(`studio asset ${name} is both a file of src/studio/assets and a vendor file (${spec})`);
    sources.set(name, readVendor(spec));
  }
  for (const [name, url] of Object.entries(shared)) {
    if (sources.has(name)) throw new Error(`studio asset ${name} is both a studio or vendor file and a shared module (${url.pathname})`);
    sources.set(name, readFileSync(url));
  }
  const assets = new Map<string, StudioAsset>();
  const resolving = new Set<string>();
  const build = (name: string): StudioAsset => {
    const done = assets.get(name);
    if (done) return done;
    const source = sources.get(name);
    if (!source) throw new Error(`studio asset ${name} is imported but there is no src/studio/assets/${name}`);
    if (resolving.has(name)) throw new Error(`studio assets import each other in a cycle through ${name}`);
    resolving.add(name);
    // A vendor file is served as it is: its imports are not ours to rewrite.
    const text = extname(name) === '.js' && !(name in vendor)
      ? Buffer.from(source.toString('utf8').replace(SIBLING_IMPORT, (_m, lead: string, q: string, dep: string) => `${lead}${q}./${build(dep).path.slice(ASSET_PREFIX.length)}${q}`))
      : source;
    const body = new Uint8Array(text);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const ext = extname(name);
    const asset = { name, path: `${ASSET_PREFIX}${name.slice(0, -ext.length)}.${hash}${ext}`, type: TYPES[ext]!, body };
    resolving.delete(name);
    assets.set(name, asset);
    return asset;
  };
  for (const name of sources.keys()) build(name);
  return assets;
}

let loaded: Map<string, StudioAsset> | undefined;
let byPath: Map<string, StudioAsset> | undefined;

/** The studio's assets, read at their first use. */
export function studioAssets(): Map<string, StudioAsset> {
  loaded ??= loadStudioAssets();
  return loaded;
}

/** Where an asset is served, by its file name (`assetPath('studio.css')`); a name with no file is a defect. */
export function assetPath(name: string): string {
  const asset = studioAssets().get(name);
  if (!asset) throw new Error(`no studio asset ${name}`);
  return asset.path;
}

/** GET /studio/assets/<hashed name>: the asset, immutable; any other name is the studio's 404. */
export function assetRoutes(app: Hono<StudioEnv>): void {
  app.get('/assets/:name', (c) => {
    byPath ??= new Map([...studioAssets().values()].map((a) => [a.path, a]));
    const asset = byPath.get(c.req.path);
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' });
  });
}
