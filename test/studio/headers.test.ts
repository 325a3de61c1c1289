import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { harness, type Harness } from '../helpers/harness.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: mediastream:; connect-src 'self'; "
  + "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

const studio = fakeStudio();
const assets = [...studioAssets().values()];

/** What every studio answer carries, page, asset, redirect or error alike. */
function expectStudioHeaders(res: Response, what: string): void {
  expect(res.headers.get('content-security-policy'), what).toBe(CSP);
  expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('cross-origin-opener-policy'), what).toBe('same-origin');
  expect(res.headers.get('permissions-policy'), what).toBe('camera=(self), microphone=(self)');
  for (const [name, value] of res.headers) expect(value, `${what}: ${name}`).not.toMatch(/unsafe-inline|unsafe-eval/);
}

describe('the studio\'s headers', () => {
  it.each([
    ['the home page', '/studio/', true, 200],
    ['the API keys page', '/studio/keys', true, 200],
    ['the account page', '/studio/account', true, 200],
    ['the sign-in page', '/studio/sign-in', false, 200],
    ['the forgotten-password page', '/studio/forgot-password', false, 200],
    ['a page without a session (redirect)', '/studio/keys', false, 303],
    ['a page that does not exist', '/studio/nope', true, 404],
    ['an asset name that is not served', '/studio/assets/keys.js', false, 404],
  ])('%s: the CSP, frame-ancestors none, no-referrer, nosniff, and no-store', async (what, path, signedIn, status) => {
    const res = await studio.get(path, { signedIn });
    expect(res.status).toBe(status);
    expectStudioHeaders(res, what);
    expect(res.headers.get('cache-control'), what).toBe('no-store');
  });

  it('serves each asset under a name holding its content hash, immutable, with its type', async () => {
    expect(assets.map((a) => a.name).sort()).toEqual(expect.arrayContaining(['api.js', 'keys.js', 'studio.css']));
    for (const asset of assets) {
      const hash = createHash('sha256').update(asset.body).digest('hex').slice(0, 12);
      expect(asset.path).toBe(`/studio/assets/${asset.name.replace(/\.(\w+)$/, `.${hash}.$1`)}`);
      const res = await studio.get(asset.path, { signedIn: false, accept: '*/*' });
      expect(res.status, asset.name).toBe(200);
      expectStudioHeaders(res, asset.name);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toBe(asset.name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(asset.body))).toBe(true);
    }
  });

  it('rewrites a script\'s import of a sibling to its hashed name, so the importer\'s hash follows it', () => {
    const api = studioAssets().get('api.js')!;
    const keys = Buffer.from(studioAssets().get('keys.js')!.body).toString('utf8');
    expect(keys).toContain(`from './${api.path.split('/').at(-1)}'`);
    expect(keys).not.toContain("from './api.js'");
  });

  it('pages link only hashed assets', async () => {
    const html = await (await studio.get('/studio/keys')).text();
    const links = [...html.matchAll(/(?:src|href)="(\/studio\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(links.sort()).toEqual([studioAssets().get('keys.js')!.path, studioAssets().get('studio.css')!.path].sort());
  });
});

describe('the studio through the service', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness();
  });
  afterAll(() => h.close());

  it('keeps its headers through the public app\'s mount (pages and assets)', async () => {
    for (const path of ['/studio/sign-in', '/studio/keys', assets[0]!.path]) {
      const res = await h.app.request(path, { headers: { accept: 'text/html' } });
      expectStudioHeaders(res, path);
    }
  });
});
