/**
 * The API reference at /docs in headless Chromium: Swagger UI renders /openapi.json under
 * the page's Content-Security-Policy, groups operations by area in the document's order,
 * asks for nothing from another host, and "Try it out" reaches the service with the API key
 * given as the username of Authorize.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';

const chromium = useChromium();
let mimic: LiveService;

beforeAll(async () => {
  mimic = await startLiveService();
});
afterAll(async () => {
  await mimic?.close();
});

describe('the API reference in a browser', () => {
  it('renders every area, and tries an operation with the API key', async () => {
    const t = await chromium.newPage();
    await t.page.addInitScript(`window.__cspViolations = []; addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`);
    await t.page.goto(`${mimic.base}/docs`);
    await t.page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    const tags = await t.page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    const doc = (await mimic.api('GET', '/openapi.json')).body as { tags: { name: string }[] };
    expect(tags).toEqual(doc.tags.map((tag) => tag.name));
    // The deprecated operation is shown as such.
    expect(await t.page.locator('#operations-Animations-postAnimations.opblock-deprecated').count()).toBe(1);

    await t.page.click('button.authorize');
    await t.page.fill('.auth-container input[type=text]', mimic.key);
    await t.page.click('.auth-btn-wrapper button.authorize');
    await t.page.click('button.btn-done');
    const op = '#operations-Animations-getAnimationsDrivers';
    await t.page.click(`${op} .opblock-summary`);
    await t.page.click(`${op} button.try-out__btn`);
    await t.page.click(`${op} button.execute`);
    const status = t.page.locator(`${op} .live-responses-table tbody .response-col_status`);
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim(), t.console.join('\n')).toBe('200');
    expect(await t.page.textContent(`${op} .live-responses-table`)).toContain('bank://nostalgia/');

    expect(t.blocked).toEqual([]);
    expect(await t.page.evaluate('window.__cspViolations')).toEqual([]);
  });
});
