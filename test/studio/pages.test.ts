import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { csrfOf, signIn } from '../accounts/studio-client.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';

const studio = fakeStudio();
const PAGES = [
  ['/studio/', 'Welcome, Ada'],
  ['/studio/keys', 'API keys'],
  ['/studio/account', 'Change your password'],
] as const;

describe('studio pages without a session', () => {
  it.each(PAGES)('%s answers 303 to the sign-in page, which comes back here after', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it('keeps the query in next', async () => {
    const res = await studio.get('/studio/keys?limit=5', { signedIn: false });
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent('/studio/keys?limit=5')}`);
  });
});

describe('studio pages of a signed-in person', () => {
  it.each(PAGES)('%s: 200 HTML in the shell (skip link, navigation, main, CSRF meta, style sheet)', async (path, heading) => {
    const res = await studio.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html>|^<html lang="en">/);
    expect(html).toContain('<a class="skip-link" href="#main">Skip to content</a>');
    expect(html).toContain('<nav class="site-nav" aria-label="Studio">');
    expect(html).toContain('<main id="main" tabindex="-1">');
    // Forms post with their real Origin (under no-referrer a browser sends `Origin: null`).
    expect(html).toContain('<meta name="referrer" content="same-origin"/>');
    expect(html).toContain('<meta name="csrf-token" content="csrf-ses_test"/>');
    expect(html).toContain(`<link rel="stylesheet" href="${studioAssets().get('studio.css')!.path}"/>`);
    expect(html).toContain(`<a href="${path}" aria-current="page">`);
    expect(html).toContain(heading);
    // Sign-out is a CSRF-protected POST form.
    expect(html).toMatch(/<form class="sign-out" method="post" action="\/studio\/sign-out"><input type="hidden" name="_csrf" value="csrf-ses_test"\/>/);
  });

  it.each(['/studio/keys', '/studio/account'])('%s: every control has a label', async (path) => {
    const html = await (await studio.get(path)).text();
    const inputs = [...html.matchAll(/<input\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !/type="hidden"/.test(m[0]));
    expect(inputs.length).toBeGreaterThan(0);
    for (const m of inputs) expect(html, m[1]).toContain(`<label for="${m[1]}">`);
  });

  it('the account page ties the password errors to its fields', async () => {
    const html = await (await studio.get('/studio/account')).text();
    expect(html).toContain('aria-describedby="password-error"');
    expect(html).toContain('aria-describedby="new-password-hint password-error"');
    expect(html).toContain('<p id="password-error" class="error" role="alert"></p>');
    expect(html).toContain(`<script type="module" src="${studioAssets().get('account.js')!.path}"></script>`);
  });

  it('the API keys page: the list is a live region, revoking asks first', async () => {
    const html = await (await studio.get('/studio/keys')).text();
    expect(html).toContain(`<script type="module" src="${studioAssets().get('keys.js')!.path}"></script>`);
    expect(html).toMatch(/<p id="keys-status" class="status" role="status" aria-live="polite"/);
    expect(html).toContain('<dialog id="key-revoke-dialog" aria-labelledby="key-revoke-title"');
    expect(html).toContain('<button id="key-create" type="button">Create a key</button>');
  });

  it('answers a page that does not exist with the studio\'s 404 page, as HTML for a browser and JSON for a fetch', async () => {
    const page = await studio.get('/studio/nope');
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('There is no studio page at /studio/nope');
    expect(html).toContain(studioAssets().get('studio.css')!.path);
    expect(html).toContain('<a class="skip-link" href="#main">');
    const json = await studio.get('/studio/nope', { accept: 'application/json' });
    expect(await json.json()).toEqual({ kind: 'NotFoundError', description: 'There is no studio page at /studio/nope' });
  });

  it('keeps the navigation and sign-out on the 404 page of a signed-in person, and shows neither without a session', async () => {
    const signedIn = await (await studio.get('/studio/nope')).text();
    expect(signedIn).toContain('<nav class="site-nav" aria-label="Studio">');
    expect(signedIn).toContain('<meta name="csrf-token" content="csrf-ses_test"/>');
    expect(signedIn).toMatch(/<form class="sign-out" method="post" action="\/studio\/sign-out"><input type="hidden" name="_csrf" value="csrf-ses_test"\/>/);
    const anonymous = await (await studio.get('/studio/nope', { signedIn: false })).text();
    expect(anonymous).toContain('There is no studio page at /studio/nope');
    expect(anonymous).not.toContain('<nav');
    expect(anonymous).not.toContain('sign-out');
    expect(anonymous).not.toContain('csrf-token');
  });

  it('answers a refused form (a wrong CSRF token) with the studio\'s 403 page', async () => {
    const res = await studio.app.request('http://mimic.test/studio/sign-out', {
      method: 'POST',
      headers: { accept: 'text/html', origin: 'http://mimic.test', cookie: 'mimic_studio=good', 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=wrong',
    });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('<h1>Not allowed</h1>');
    expect(html).toContain(studioAssets().get('studio.css')!.path);
    // The person is signed in (only the token was wrong): the page keeps the navigation.
    expect(html).toContain('<nav class="site-nav" aria-label="Studio">');
  });
});

describe('a forgotten password', () => {
  it('the sign-in page links to the forgotten-password page', async () => {
    const html = await (await studio.get('/studio/sign-in', { signedIn: false })).text();
    expect(html).toContain('<a href="/studio/forgot-password">Forgot your password?</a>');
  });

  it('the page says the same to everyone: ask the operator for a reset link; it asks for nothing', async () => {
    const anonymous = await studio.get('/studio/forgot-password', { signedIn: false });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await anonymous.text();
    expect(html).toContain('<h1>Forgot your password?</h1>');
    expect(html).toContain('Ask your operator');
    expect(html).toContain('<code>users reset-password</code>');
    expect(html).toContain('<a href="/studio/sign-in">Back to sign in</a>');
    // No form, no field: nothing to tell whether an email has an account.
    expect(html).not.toContain('<form');
    expect(html).not.toContain('<input');
    expect(html).not.toContain('<nav');
    const signedIn = await (await studio.get('/studio/forgot-password')).text();
    expect(signedIn).toContain('Ask your operator');
    expect(signedIn).toContain('<nav class="site-nav" aria-label="Studio">');
  });
});

describe('the studio in the service', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness();
  });
  afterAll(() => h.close());

  it('serves each page to a person signed in through the sign-in form, and sends them back to sign-in once signed out', async () => {
    await person(h, { email: 'grace@example.com', password: 'a long enough password', name: 'Grace <b>Hopper</b>' });
    const client = await signIn(h, 'grace@example.com', 'a long enough password');
    const csrf = await csrfOf(h, client);
    for (const [path] of PAGES) {
      const res = await client.get(path, { accept: 'text/html' });
      expect(res.status, path).toBe(200);
      const html = await res.text();
      expect(html).toContain(`<meta name="csrf-token" content="${csrf}"/>`);
      expect(html).toContain('Grace &lt;b&gt;Hopper&lt;/b&gt;');
    }
    const cookie = client.cookie!;
    const out = await client.post('/studio/sign-out', { _csrf: csrf });
    expect(out.status).toBe(303);
    const after = await h.app.request('/studio/keys', { headers: { accept: 'text/html', cookie } });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent('/studio/keys')}`);
  });

  it('sends /studio to /studio/, and a page without a session to sign-in', async () => {
    const root = await h.app.request('/studio');
    expect(root.status).toBe(301);
    expect(root.headers.get('location')).toBe('/studio/');
    for (const [path] of PAGES) {
      const res = await h.app.request(path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
    }
  });
});
