import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fakeStudio } from './fake-accounts.ts';
import { loadStudioAssets, studioAssets, VENDOR_ASSETS } from '../../src/studio/routes/assets.ts';
import { SSML_HINTS } from '../../src/studio/routes/pages/clips-new.tsx';
import { parseSsml } from '../../src/voices/ssml.ts';

const studio = fakeStudio();
const PAGES = [
  ['/studio/presenters', 'Presenters', 'presenters.js'],
  ['/studio/clips/new', 'New clip', 'clip-new.js'],
  ['/studio/clips', 'Clips', 'lists.js'],
  ['/studio/talks', 'Talks', 'lists.js'],
  ['/studio/animations', 'Animations', 'lists.js'],
  ['/studio/clips/clp_abc123', 'Clip', 'clip.js'],
  ['/studio/talks/tlk_abc123', 'Talk', 'clip.js'],
  ['/studio/animations/anm_abc123', 'Animation', 'clip.js'],
] as const;
const asset = (name: string) => studioAssets().get(name)!.path;

describe('the clip pages', () => {
  it.each(PAGES)('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it.each(PAGES)('%s: in the shell with its script and clips.css, every control labelled', async (path, heading, script) => {
    const res = await studio.get(path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<h1`);
    expect(html).toContain(`>${heading}</h1>`);
    expect(html).toContain(`<script type="module" src="${asset(script)}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${asset('clips.css')}"/>`);
    const controls = [...html.matchAll(/<(input|select|textarea)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    for (const m of controls) expect(html, m[2]).toMatch(new RegExp(`<label\\b[^>]*\\bfor="${m[2]}"`));
  });

  it('marks the list in the navigation, and keeps a known status filter chosen (an unknown one is Any)', async () => {
    const done = await (await studio.get('/studio/clips?status=done')).text();
    expect(done).toContain('<a href="/studio/clips" aria-current="page">');
    expect(done).toMatch(/<option value="done" selected="">Done<\/option>/);
    const odd = await (await studio.get('/studio/talks?status=%3Cb%3E')).text();
    expect(odd).toMatch(/<option value="" selected="">Any<\/option>/);
    expect(odd).not.toContain('<b>');
  });

  it('carries the presenter of ?presenter_id= to the form as an escaped data attribute', async () => {
    const html = await (await studio.get(`/studio/clips/new?presenter_id=${encodeURIComponent('"><img src=x onerror=alert(1)>')}`)).text();
    expect(html).toContain('data-presenter-id="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(html).not.toContain('<img src=x');
  });

  it('answers an id that is no record id with the 404 page', async () => {
    expect((await studio.get('/studio/clips/not%20an%20id')).status).toBe(404);
    expect((await studio.get('/studio/talks/a.b')).status).toBe(404);
  });

  it('hints only SSML the voices understand: each hint parses, and the pause and rate ones shape the speech', () => {
    const segments = SSML_HINTS.map((h) => parseSsml(`<speak>Say ${h.insert} this.</speak>`));
    expect(segments[0]).toContainEqual({ kind: 'pause', ms: 500 });
    expect(segments[1]!.some((s) => s.kind === 'text' && s.rate < 1)).toBe(true);
    expect(segments[2]!.some((s) => s.kind === 'text' && s.text.includes('World Health Organization'))).toBe(true);
  });
});

describe('vendor assets', () => {
  it('serves hls.js from the package, hashed and immutable like the studio\'s own, without its source map comment', async () => {
    const hls = studioAssets().get('hls.js')!;
    expect(hls.path).toMatch(/^\/studio\/assets\/hls\.[0-9a-f]{12}\.js$/);
    const res = await studio.get(hls.path, { signedIn: false, accept: '*/*' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = await res.text();
    const file = readFileSync(createRequire(import.meta.url).resolve(VENDOR_ASSETS['hls.js']!), 'utf8');
    expect(file).toContain('//# sourceMappingURL=');
    expect(body).not.toContain('sourceMappingURL');
    expect(body.trimEnd()).toBe(file.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '').trimEnd());
    // Nothing in it the CSP would refuse.
    for (const banned of ['eval(', 'new Function', 'innerHTML', 'importScripts']) expect(body, banned).not.toContain(banned);
    // clip.js loads it on demand, under its hashed name.
    expect(Buffer.from(studioAssets().get('clip.js')!.body).toString()).toContain(`import('./${hls.path.slice('/studio/assets/'.length)}')`);
  });

  it('refuses a vendor name that is also a file of the studio', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-assets-'));
    writeFileSync(join(dir, 'hls.js'), 'export {};');
    expect(() => loadStudioAssets(pathToFileURL(`${dir}/`), VENDOR_ASSETS)).toThrow(/both a file of src\/studio\/assets and a vendor file/);
  });
});
