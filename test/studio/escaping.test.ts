import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeStudio, SESSION } from './fake-accounts.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';
const STUDIO = new URL('../../src/studio/', import.meta.url).pathname;

describe('user text on studio pages', () => {
  it.each(['/studio/', '/studio/keys', '/studio/account'])('%s shows a hostile name and email as text, never as HTML', async (path) => {
    const studio = fakeStudio({ ...SESSION, name: HOSTILE, email: '"><script>alert(2)</script>@example.com' });
    const html = await (await studio.get(path)).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror=alert(1)>');
    // The only script elements are the page's hashed modules.
    for (const m of html.matchAll(/<script\b[^>]*>/g)) expect(m[0]).toMatch(/^<script type="module" src="\/studio\/assets\/[\w-]+\.[0-9a-f]{12}\.js"><\/?script>?$|^<script type="module" src="\/studio\/assets\/[\w-]+\.[0-9a-f]{12}\.js">$/);
  });

  it('shows the email as text when there is no name', async () => {
    const studio = fakeStudio({ ...SESSION, name: null, email: 'a&b<c>@example.com' });
    const html = await (await studio.get('/studio/')).text();
    expect(html).toContain('a&amp;b&lt;c&gt;@example.com');
  });
});

/** Every file under src/studio/, with its path from there. */
function studioFiles(dir = STUDIO): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? studioFiles(join(dir, e.name)) : [{ path: relative(STUDIO, join(dir, e.name)), text: readFileSync(join(dir, e.name), 'utf8') }],
  );
}

/** The constructs that would let text become markup or script (docs/studio.md): a test fails on any. */
const BANNED_IN_PAGES: [string, RegExp][] = [
  ['raw()', /\braw\s*\(/],
  ['dangerouslySetInnerHTML', /dangerouslySetInnerHTML/],
  ['the html`` helper', /\bhtml\s*`/],
  ['an inline <script> (one without src)', /<script\b(?![^>]*\bsrc=)/],
  ['an on* event attribute', /<[a-zA-Z][^>]*\son[a-z]+\s*=/],
  ['a style attribute', /<[a-zA-Z][^>]*\sstyle\s*=/],
];
const BANNED_IN_SCRIPTS: [string, RegExp][] = [
  ['innerHTML', /\binnerHTML\b/],
  ['outerHTML', /\bouterHTML\b/],
  ['insertAdjacentHTML', /\binsertAdjacentHTML\b/],
  ['document.write', /\bdocument\.write/],
  ['eval', /\beval\s*\(/],
  ['new Function', /\bnew\s+Function\b/],
  ['an on* attribute set from script', /setAttribute\(\s*['"]on/],
  ['localStorage or sessionStorage (the token stays in memory)', /\b(?:localStorage|sessionStorage)\b/],
];

function violations(files: { path: string; text: string }[], rules: [string, RegExp][]): string[] {
  return files.flatMap((f) => rules.filter(([, re]) => re.test(f.text)).map(([what]) => `${f.path}: ${what}`));
}

describe('the studio\'s source', () => {
  const files = studioFiles();
  const pages = files.filter((f) => /\.tsx?$/.test(f.path));
  const scripts = files.filter((f) => /^assets\/.*\.js$/.test(f.path));

  it('reads the pages and the scripts', () => {
    expect(pages.map((f) => f.path)).toEqual(expect.arrayContaining(['routes/layout.tsx', 'routes/pages/keys.tsx']));
    expect(scripts.map((f) => f.path)).toEqual(expect.arrayContaining(['assets/api.js', 'assets/keys.js']));
  });

  it('has no construct that renders text as HTML or runs inline script', () => {
    expect(violations(pages, BANNED_IN_PAGES)).toEqual([]);
    expect(violations(scripts, BANNED_IN_SCRIPTS)).toEqual([]);
  });

  it('would catch each banned construct', () => {
    const planted = [
      'c.html(raw(name))', '<div dangerouslySetInnerHTML={{ __html: x }} />', 'html`<p>${x}</p>`', '<script>var a = 1</script>',
      '<button onclick="go()">', '<p style="color:red">',
    ];
    for (const [i, text] of planted.entries()) expect(violations([{ path: 'x.tsx', text }], [BANNED_IN_PAGES[i]!])).toHaveLength(1);
    for (const text of ['el.innerHTML = x', 'el.outerHTML = x', "el.insertAdjacentHTML('beforeend', x)", 'document.write(x)', 'eval(x)', 'new Function(x)', "el.setAttribute('onclick', x)", 'localStorage.token = t']) {
      expect(violations([{ path: 'x.js', text }], BANNED_IN_SCRIPTS), text).toHaveLength(1);
    }
    expect(violations([{ path: 'ok.tsx', text: '<script type="module" src={assetPath(name)} />' }], BANNED_IN_PAGES)).toEqual([]);
  });
});
