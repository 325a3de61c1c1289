/**
 * The studio in headless Chromium: a person signs in by keyboard, the session cookie has
 * the flags it should over http, and on the API keys page a key is created (shown once),
 * works from another client, is revoked after a confirmation and is then refused. No
 * content-security-policy violation on the way, nothing fetched from elsewhere, no
 * horizontal scroll at phone width. Screenshots go to docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useChromium, waitForPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, signInByKeyboard, type Person } from '../helpers/studio.ts';
import { API_KEY_PATTERN } from '../../src/users/api-keys.ts';

/**
 * Where a page's screenshot goes: docs/images/ when MIMIC_UPDATE_SCREENSHOTS=1 (then look at
 * them and commit), else a temporary folder, so that a test run leaves the checkout as it was.
 */
const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const chromium = useChromium();
let mimic: LiveService;
let ada: Person;

beforeAll(async () => {
  mimic = await startLiveService();
  ada = await seedPerson(mimic.running.services, { email: 'Ada@Example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
});
afterAll(async () => {
  await mimic?.close();
});

const withKey = (key: string) => fetch(`${mimic.base}/keys`, { headers: { authorization: `Basic ${key}` } });

describe('the studio in a browser', () => {
  it('signs in by keyboard, creates a key shown once, revokes it, all under the CSP', async () => {
    const t = await chromium.newPage();
    // Every page the test loads reports its violations here (a listener per document).
    const violations: string[] = [];
    await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
    await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
    await t.page.setViewportSize({ width: 1000, height: 760 });

    await t.page.goto(`${mimic.base}/studio/keys`);
    expect(new URL(t.page.url()).pathname).toBe('/studio/sign-in');
    await t.page.screenshot({ path: screenshot('studio-sign-in.png') });
    const stops = await signInByKeyboard(t.page, ada);
    expect(stops[0], 'the skip link is the first stop').toBe('A');
    await t.page.waitForURL(`${mimic.base}/studio/keys`).catch(async (err) => {
      throw new Error(`${err.message}\n${await t.page.textContent('main')}\n${t.console.join('\n')}`);
    });

    const [cookie] = (await t.context.cookies()).filter((c) => c.name.includes('mimic_studio'));
    expect(cookie).toMatchObject({ name: 'mimic_studio', httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });

    // The list, from GET /keys with the session's token: the key the user was made with.
    await t.page.locator('#keys-rows tr[data-key-id]').first().waitFor();
    expect(await t.page.locator('#keys-rows tr[data-key-id]').count()).toBe(1);

    await t.page.click('#key-create');
    const value = t.page.locator('#key-created-value');
    await value.waitFor({ state: 'visible' });
    const apiKey = await value.inputValue();
    expect(apiKey).toMatch(API_KEY_PATTERN);
    expect(await t.page.textContent('#keys-status')).toContain('Copy it now');
    await waitForPage(t, (p) => p.locator('#keys-rows tr[data-key-id]').count(), (n) => n === 2, 'the new key listed');
    expect(await t.page.textContent('#keys-rows')).not.toContain(apiKey);
    expect((await withKey(apiKey)).status).toBe(200);
    await t.page.screenshot({ path: screenshot('studio-keys.png'), fullPage: true });

    // Revoke it: the dialog asks first; Cancel keeps it.
    const prefix = apiKey.slice(0, 12);
    const revoke = t.page.getByRole('button', { name: `Revoke key ${prefix}…` });
    await revoke.click();
    const dialog = t.page.locator('#key-revoke-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await t.page.textContent('#key-revoke-prefix')).toBe(`${prefix}…`);
    await t.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await withKey(apiKey)).status).toBe(200);
    await revoke.click();
    await t.page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await waitForPage(t, (p) => p.textContent('#keys-status'), (s) => (s ?? '').includes('revoked'), 'the revocation reported');
    expect((await withKey(apiKey)).status).toBe(401);
    expect(await t.page.locator(`#keys-rows tr:has-text("${prefix}")`).textContent()).toContain('Revoked');

    // A phone's width: nothing scrolls sideways.
    await t.page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/keys', '/studio/', '/studio/account']) {
      await t.page.goto(`${mimic.base}${path}`);
      await t.page.locator('main h1').waitFor();
      const overflow = await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, path).toBeLessThanOrEqual(0);
    }

    // The account page: this session is "this device"; a second browser signs in, and is signed out from here.
    await t.page.setViewportSize({ width: 1000, height: 760 });
    const other = await chromium.newPage();
    await other.page.goto(`${mimic.base}/studio/keys`);
    await other.page.fill('#email', ada.email);
    await other.page.fill('#password', ada.password);
    await other.page.click('button[type=submit]');
    await other.page.waitForURL(`${mimic.base}/studio/keys`);
    await other.page.locator('#keys-rows tr[data-key-id]').first().waitFor();

    await t.page.goto(`${mimic.base}/studio/account`);
    await waitForPage(t, (p) => p.locator('#sessions-rows tr').count(), (n) => n === 2, 'both sessions listed');
    expect(await t.page.locator('#sessions-rows tr:has-text("(this device)")').count()).toBe(1);
    await t.page.screenshot({ path: screenshot('studio-account.png'), fullPage: true });
    await t.page.locator('#sessions-rows tr:not(:has-text("(this device)")) button').click();
    await waitForPage(t, (p) => p.locator('#sessions-rows tr').count(), (n) => n === 1, 'the other session gone');
    // The other browser's next API call is refused, and its page goes to sign-in.
    await other.page.click('#key-create');
    await other.page.waitForURL(/\/studio\/sign-in\?next=%2Fstudio%2Fkeys$/);

    // A wrong current password is refused, beside the field; the right one changes it.
    await t.page.fill('#current-password', 'not the password');
    await t.page.fill('#new-password', 'an even longer new password');
    await t.page.click('#password-form button[type=submit]');
    await waitForPage(t, (p) => p.textContent('#password-error'), (s) => (s ?? '') !== '', 'the refusal');
    expect(await t.page.textContent('#password-error')).toContain('current password');
    await t.page.fill('#current-password', ada.password);
    await t.page.fill('#new-password', 'an even longer new password');
    await t.page.click('#password-form button[type=submit]');
    await waitForPage(t, (p) => p.textContent('#account-status'), (s) => (s ?? '').includes('Password changed'), 'the change');

    // Sign out (a CSRF-protected form in the header): back to sign-in, and the pages with it.
    await t.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await t.page.waitForURL(`${mimic.base}/studio/sign-in`);
    expect((await t.context.cookies()).filter((c) => c.name.includes('mimic_studio'))).toEqual([]);
    await t.page.goto(`${mimic.base}/studio/keys`);
    expect(new URL(t.page.url()).pathname).toBe('/studio/sign-in');

    expect([...t.blocked, ...other.blocked]).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    // No script error; the one failed request is the refused password (403).
    expect(t.console.filter((l) => l.startsWith('pageerror') || l.startsWith('error'))).toEqual(['error: Failed to load resource: the server responded with a status of 403 (Forbidden)']);
  });
});
