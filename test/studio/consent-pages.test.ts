/**
 * The consent pages of the studio, rendered for a (fake) signed-in person: the list, a new
 * consent and one consent; the scripts and style sheet they load; a label on every control;
 * a consent id that is not one is the studio's 404. The recording itself runs in a browser
 * (test/browser/studio-consent.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { fakeStudio, SESSION } from './fake-accounts.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';

const studio = fakeStudio();
const asset = (name: string) => studioAssets().get(name)!.path;

describe('the consent pages', () => {
  it.each(['/studio/consents', '/studio/consents/new', '/studio/consents/cns_abc123'])('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it('lists the consents with a way to record one, a status filter and the navigation entry', async () => {
    const res = await studio.get('/studio/consents');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Consents</h1>');
    expect(html).toContain('<a class="button" href="/studio/consents/new">Record a consent</a>');
    expect(html).toContain('<a href="/studio/consents" aria-current="page">Consents</a>');
    expect(html).toContain(`<script type="module" src="${asset('consents.js')}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${asset('consent.css')}"/>`);
    for (const status of ['done', 'validating', 'created', 'error']) expect(html).toContain(`<option value="${status}">`);
  });

  it.each([
    ['/studio/consents/new', 'Record a consent', ''],
    ['/studio/consents/cns_abc123', 'Consent', 'cns_abc123'],
  ])('%s: the three steps, its id for the script, the live regions', async (path, heading, id) => {
    const html = await (await studio.get(path)).text();
    expect(html).toContain(`<h1 id="consent-heading" tabindex="-1">${heading}</h1>`);
    expect(html).toContain(`<div id="consent-app" data-consent-id="${id}">`);
    expect(html).toContain(`<script type="module" src="${asset('consent-record.js')}"></script>`);
    for (const step of ['step-choose', 'step-record', 'step-verify']) expect(html).toMatch(new RegExp(`<section id="${step}" class="panel" aria-labelledby="[\\w-]+" hidden="">`));
    expect(html).toMatch(/<p id="record-status" class="status" role="status" aria-live="polite">/);
    expect(html).toMatch(/<p id="record-error" class="error" role="alert">/);
    expect(html).toContain('<ol id="checks" class="checks" aria-live="polite">');
    expect(html).toContain('<video id="preview" class="preview" muted="" playsinline="" aria-label="Camera preview">');
    expect(html).toMatch(/<progress id="upload-bar" max="100" value="0"/);
  });

  it.each(['/studio/consents/new', '/studio/consents/cns_abc123'])('%s: every input, select, meter and progress has a label', async (path) => {
    const html = await (await studio.get(path)).text();
    const controls = [...html.matchAll(/<(input|select|meter|progress)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    expect(controls.map((m) => m[2])).toEqual(['consent-language', 'consent-name', 'record-name', 'level', 'upload-bar']);
    for (const m of controls) expect(html, m[2]).toContain(`<label for="${m[2]}">`);
  });

  it('answers an id that is not a consent id with the studio\'s 404 page', async () => {
    for (const path of ['/studio/consents/nope', '/studio/consents/cns_', '/studio/consents/cns_a%22b']) {
      const res = await studio.get(path);
      expect(res.status, path).toBe(404);
    }
  });

  it('shows a hostile name of the person as text', async () => {
    const hostile = fakeStudio({ ...SESSION, name: '<img src=x onerror=alert(1)>' });
    const html = await (await hostile.get('/studio/consents/new')).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });
});
