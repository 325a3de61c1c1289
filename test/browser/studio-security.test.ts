/**
 * The studio's defences in headless Chromium (issue 20 §6.1, fifth bullet), beside what
 * studio-account.test.ts covers (the cookie's flags over http, a session signed out from the
 * account page):
 * - a form on another loopback origin that posts to /studio/sign-out and /studio/token is
 *   refused, even carrying the session's real CSRF token: from another site (the SameSite=Lax
 *   cookie is not even sent) and from the same site on another port (the cookie is sent; the
 *   same-origin check refuses it); the session lives on;
 * - over an https public URL the cookie is `__Host-mimic_studio`, Secure, HttpOnly,
 *   SameSite=Lax, Path=/, no Domain, read on the Set-Cookie header Chromium received;
 * - the sign-in limit reached shows its page (429, Retry-After, the wait in words);
 * - a session revoked from another browser sends that one to sign-in at its next call, and
 *   after signing in again it is back where it was, filters and all; the audit log shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Response } from 'playwright-core';
import { servePages, useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { startHttpServer, type TestServer } from '../helpers/tls.ts';
import { sqliteOf } from '../helpers/stores.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const chromium = useChromium();
let mimic: LiveService;
let ada: Person;
/** A page on another site (`localhost`, where mimic is `127.0.0.1`) and one on the same site, another port. */
let otherSite: TestServer;
let sameSite: TestServer;

/** Builds a form from its query (action, _csrf) and posts it at once: what a hostile page would do. */
const FORGERY = `<!doctype html><meta charset="utf-8"><title>Win a prize</title><form id="f" method="post"></form><script>
const q = new URLSearchParams(location.search);
const f = document.getElementById('f');
f.action = q.get('action');
const i = document.createElement('input');
i.name = '_csrf';
i.value = q.get('csrf');
f.append(i);
f.submit();
</script>`;

beforeAll(async () => {
  mimic = await startLiveService({ env: { MIMIC_SIGN_IN_PER_ACCOUNT: '3' } });
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
  otherSite = await servePages({ '/forge': { body: FORGERY, type: 'text/html; charset=utf-8' } });
  sameSite = await servePages({ '/forge': { body: FORGERY, type: 'text/html; charset=utf-8' } });
});
afterAll(async () => {
  await mimic?.close();
  await otherSite?.close();
  await sameSite?.close();
});

async function signIn(t: TestPage, person: Pick<Person, 'email' | 'password'>, path: string) {
  await t.page.goto(`${mimic.base}${path}`);
  await t.page.fill('#email', person.email);
  await t.page.fill('#password', person.password);
  await t.page.click('button[type=submit]');
  await t.page.waitForURL(`${mimic.base}${path}`);
}

const liveSessions = () => sqliteOf(mimic.running.services.store).sqlite.prepare('SELECT count(*) AS n FROM studio_sessions WHERE revoked_at IS NULL').get() as { n: number };
const isPost = (path: string) => (r: Response) => r.request().method() === 'POST' && new URL(r.url()).pathname === path;

/** The forged form's answer, posted from `origin` to `path` with `csrf`. */
async function forge(page: Page, origin: string, path: string, csrf: string): Promise<Response> {
  const answer = page.waitForResponse(isPost(path));
  await page.goto(`${origin}/forge?action=${encodeURIComponent(`${mimic.base}${path}`)}&csrf=${encodeURIComponent(csrf)}`);
  return answer;
}

describe('the studio under attack, in a browser', () => {
  it('refuses forged posts to sign-out and the token from another origin, even with the real CSRF token', async () => {
    const t = await chromium.newPage();
    await signIn(t, ada, '/studio/account');
    const csrf = (await t.page.getAttribute('meta[name="csrf-token"]', 'content'))!;
    expect(csrf).toBeTruthy();
    const sameSiteOrigin = sameSite.url.replace('localhost', '127.0.0.1');
    expect(new URL(otherSite.url).hostname).not.toBe(new URL(mimic.base).hostname);

    for (const origin of [otherSite.url, sameSiteOrigin]) {
      for (const path of ['/studio/sign-out', '/studio/token']) {
        const res = await forge(t.page, origin, path, csrf);
        expect(res.status(), `${path} from ${origin}`).toBe(403);
        expect(await res.text()).toContain('cross-site request refused');
        expect(await res.headerValue('set-cookie'), 'the cookie is not cleared').toBeNull();
      }
    }
    // The session lives on: its page opens, its token is minted, nothing was signed out.
    expect(liveSessions().n).toBe(1);
    await t.page.goto(`${mimic.base}/studio/account`);
    expect(new URL(t.page.url()).pathname).toBe('/studio/account');
    await waitForPage(t, (p) => p.locator('#sessions-rows tr').count(), (n) => n === 1, 'the session listed (a token minted)');
    // The same form from the studio itself works: the check is the origin, not forms as such.
    await t.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await t.page.waitForURL(`${mimic.base}/studio/sign-in`);
    expect(liveSessions().n).toBe(0);
  });

  it('over an https public URL the cookie is __Host-mimic_studio: Secure, HttpOnly, SameSite=Lax, Path=/, no Domain', async () => {
    const secure = await startLiveService({ env: { MIMIC_PUBLIC_URL: 'https://studio.example' } });
    try {
      const person = await seedPerson(secure.running.services, { email: 'ada@example.com', password: 'correct horse battery staple' });
      const t = await chromium.newPage();
      await t.page.goto(`${secure.base}/studio/sign-in`);
      await t.page.fill('#email', person.email);
      await t.page.fill('#password', person.password);
      const answer = t.page.waitForResponse(isPost('/studio/sign-in'));
      await t.page.click('button[type=submit]');
      const res = await answer;
      expect(res.status()).toBe(303);
      const cookie = (await res.headerValue('set-cookie'))!;
      expect(cookie).toMatch(/^__Host-mimic_studio=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      expect(cookie).not.toMatch(/domain=/i);
    } finally {
      await secure.close();
    }
  });

  it('the sign-in limit reached shows its page with Retry-After, even for the right password', async () => {
    const bo = await seedPerson(mimic.running.services, { email: 'bo@example.com', password: 'a long and right password' });
    const t = await chromium.newPage();
    await t.page.goto(`${mimic.base}/studio/sign-in`);
    for (let i = 0; i < 3; i++) {
      await t.page.fill('#email', bo.email);
      await t.page.fill('#password', `wrong password ${i}`);
      const answer = t.page.waitForResponse(isPost('/studio/sign-in'));
      await t.page.click('button[type=submit]');
      expect((await answer).status()).toBe(200);
      expect(await t.page.textContent('#sign-in-error')).toBe('Wrong email or password.');
    }
    await t.page.fill('#password', bo.password);
    const answer = t.page.waitForResponse(isPost('/studio/sign-in'));
    await t.page.click('button[type=submit]');
    const res = await answer;
    expect(res.status()).toBe(429);
    const retryAfter = Number(await res.headerValue('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(await t.page.textContent('#sign-in-error')).toBe('Too many failed sign-ins. Try again in 15 minutes.');
    // The error is tied to the email field, and the email is kept.
    expect(await t.page.getAttribute('#email', 'aria-describedby')).toBe('sign-in-error');
    expect(await t.page.inputValue('#email')).toBe(bo.email);
    expect((await t.context.cookies()).filter((c) => c.name.includes('mimic_studio'))).toEqual([]);
    await t.page.screenshot({ path: join(SHOTS, 'studio-sign-in-throttled.png') });
  });

  it('a session revoked from another browser goes to sign-in at its next call, and comes back where it was', async () => {
    const laptop = await chromium.newPage();
    const phone = await chromium.newPage();
    await signIn(laptop, ada, '/studio/account');
    const filtered = '/studio/audit?action=account.*';
    await signIn(phone, ada, filtered);
    await waitForPage(phone, (p) => p.locator('#audit-rows tr[data-action]').count(), (n) => n > 0, 'the phone\'s audit log');

    await laptop.page.reload();
    await waitForPage(laptop, (p) => p.locator('#sessions-rows tr').count(), (n) => n === 2, 'both sessions');
    await laptop.page.locator('#sessions-rows tr:not(:has-text("(this device)")) button').click();
    await waitForPage(laptop, (p) => p.locator('#sessions-rows tr').count(), (n) => n === 1, 'the phone signed out');

    // The phone's page still shows, with a token in memory; its next call is refused, and it goes to sign-in.
    await phone.page.click('#audit-filters button[type=submit]');
    await phone.page.waitForURL(`${mimic.base}/studio/sign-in?next=${encodeURIComponent(filtered)}`);
    await phone.page.fill('#email', ada.email);
    await phone.page.fill('#password', ada.password);
    await phone.page.click('button[type=submit]');
    await phone.page.waitForURL(`${mimic.base}${filtered}`);
    expect(await phone.page.inputValue('#filter-action')).toBe('account.*');
    await waitForPage(phone, (p) => p.textContent('#audit-rows'), (s) => (s ?? '').includes('Session signed out from the account page'), 'the revocation in the audit log');
    expect([...laptop.blocked, ...phone.blocked]).toEqual([]);
  });
});
