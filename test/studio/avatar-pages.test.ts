/**
 * The avatar pages as served (issue 20 §3.2): behind a session, in the shell with their own
 * script and style sheet, a label on every control, the avatar's id handed to the script in
 * a data attribute only when it looks like one, and no web storage in the upload module.
 * What the pages do in a browser: test/browser/studio-avatar.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';

const studio = fakeStudio();
const ID = 'avt_0mih6x8r40000a1b2c3d4';
const PAGES = [
  ['/studio/avatars', 'avatars.js', 'New avatar'],
  ['/studio/avatars/new', 'avatar-new.js', 'Upload and create the avatar'],
  [`/studio/avatars/${ID}`, 'avatar.js', 'Footage checks'],
] as const;
const asset = (name: string) => studioAssets().get(name)!.path;

describe('the avatar pages', () => {
  it.each(PAGES)('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it.each(PAGES)('%s: 200 in the shell with its script, the avatar style sheet and the navigation marked', async (path, script, text) => {
    const res = await studio.get(path);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<script type="module" src="${asset(script)}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${asset('avatar.css')}"/>`);
    expect(html).toContain('<a href="/studio/avatars" aria-current="page">Avatars</a>');
    expect(html).toContain(text);
  });

  it.each(PAGES)('%s: every control has a label', async (path) => {
    const html = await (await studio.get(path)).text();
    const controls = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    for (const m of controls) expect(html, m[1]).toContain(`<label for="${m[1]}">`);
  });

  it('hands the avatar id to its script in a data attribute; anything else under /studio/avatars/ is the 404 page', async () => {
    expect(await (await studio.get(`/studio/avatars/${ID}`)).text()).toContain(`data-avatar-id="${ID}"`);
    for (const path of ['/studio/avatars/nope', '/studio/avatars/avt_x%22%3E%3Cscript%3E', '/studio/avatars/clp_123']) {
      const res = await studio.get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('data-avatar-id');
    }
  });

  it('the new-avatar form ties its hints and errors to the fields, and shows the upload as a progress bar', async () => {
    const html = await (await studio.get('/studio/avatars/new')).text();
    expect(html).toContain('aria-describedby="consent-hint"');
    expect(html).toContain('aria-describedby="footage-hint"');
    expect(html).toMatch(/<p id="avatar-form-error" class="error" role="alert"/);
    expect(html).toMatch(/<progress id="upload-progress"[^>]*aria-describedby="upload-figures"/);
    expect(html).toContain('<a class="button" href="/studio/consents">Record a consent</a>');
  });

  it('the upload module keeps nothing in web storage and takes its token from api.js', () => {
    const source = readFileSync(new URL('../../src/studio/assets/upload.js', import.meta.url), 'utf8');
    expect(source).not.toMatch(/localStorage|sessionStorage|indexedDB|document\.cookie/);
    expect(source).toContain("import { getToken } from './api.js';");
  });
});
