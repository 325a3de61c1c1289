/**
 * examples/stream/ as mimic serves it, in headless Chromium: the page runs under its own
 * Content-Security-Policy with no violation, fills in the service's origin, and uploads a
 * photo through POST /images; opened from another origin, it shows the service's errors. Streaming itself is test/browser/example.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { servePages, useChromium, waitForPage } from '../helpers/browser.ts';
import type { TestServer } from '../helpers/tls.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { ROOT } from '../helpers/cli.ts';

const chromium = useChromium();
let mimic: LiveService;
let pages: TestServer;
let pageOrigin: string;

beforeAll(async () => {
  // The documented way without mimic serving it: any static server, its origin in MIMIC_CORS_ORIGINS.
  pages = await servePages({ '/': join(ROOT, 'examples/stream/index.html'), '/app.js': join(ROOT, 'examples/stream/app.js'), '/stream.js': join(ROOT, 'examples/stream/stream.js') });
  pageOrigin = `http://127.0.0.1:${pages.port}`;
  mimic = await startLiveService({ env: { MIMIC_CORS_ORIGINS: pageOrigin } });
});
afterAll(async () => {
  await mimic?.close();
  await pages?.close();
});

describe('the example page served by mimic', () => {
  it('runs under its policy, knows its service, and uploads a photo with the typed key', async () => {
    const t = await chromium.newPage();
    await t.page.addInitScript(`window.__cspViolations = []; addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`);
    await t.page.goto(`${mimic.base}/examples/stream/`);
    expect(await t.page.inputValue('#base-url')).toBe(mimic.base);
    // The style block ran (its hash is in the policy) and the script did (buttons reflect state).
    expect(await t.page.evaluate(`getComputedStyle(document.body).backgroundColor`)).toBe('rgb(245, 245, 247)');
    expect(await t.page.isDisabled('#talk-speak')).toBe(true);

    await t.page.fill('#api-key', mimic.key);
    await t.page.setInputFiles('#photo-file', join(ROOT, 'assets/presenters/eileen.jpg'));
    const url = await waitForPage(t, (p) => p.inputValue('#photo-url'), (v) => v !== '', 'the uploaded photo URL');
    expect(url).toMatch(/^[a-z0-9]+:\/\/.+\.jpg$/);
    expect(await t.page.textContent('#log')).toContain(`photo uploaded: ${url}`);
    expect(await t.page.evaluate('window.__cspViolations')).toEqual([]);
    expect(t.console.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
    expect(t.blocked).toEqual([]);
  });

  it('Connect pressed while the chosen photo still uploads waits for the upload, and the face shows before anything is said (fluent)', async () => {
    const t = await chromium.newPage();
    await t.page.goto(`${mimic.base}/examples/stream/`);
    await t.page.fill('#api-key', mimic.key);
    await t.page.setInputFiles('#photo-file', join(ROOT, 'assets/presenters/eileen.jpg'));
    await t.page.click('#talk-connect');
    await waitForPage(t, (p) => p.evaluate(`document.querySelector('#video').videoWidth`), (w) => (w as number) > 0, 'the face on the video', 60_000);
    const log = (await t.page.textContent('#log')) ?? '';
    expect(log).toMatch(/photo uploaded: .*stream strm_\S+ created/s);
    expect(log).not.toContain('give a photo');
    await t.page.click('#talk-disconnect');
    await waitForPage(t, (p) => p.textContent('#status'), (v) => v === 'disconnected', 'disconnected');
  });

  // From another origin: served by mimic itself, a 401 (WWW-Authenticate: Basic) on the page's
  // own origin makes Chromium ask for a login (a dialog; headless, the request waits forever).
  it('opened from a static server on another origin (CORS), shows the service\'s error when the key is wrong', async () => {
    const t = await chromium.newPage();
    await t.page.goto(`${pageOrigin}/`);
    await t.page.fill('#base-url', mimic.base);
    await t.page.fill('#api-key', 'mimic_wrong');
    await t.page.setInputFiles('#photo-file', join(ROOT, 'assets/presenters/eileen.jpg'));
    const log = await waitForPage(t, (p) => p.textContent('#log'), (v) => Boolean(v?.includes('POST /images')), 'the error line', 15_000);
    expect(log).toMatch(/POST \/images: 401 AuthorizationError/);
    expect(await t.page.inputValue('#photo-url')).toBe('');
  });

  it('wraps a long log line instead of widening the page', async () => {
    const t = await chromium.newPage();
    await t.page.setViewportSize({ width: 1000, height: 700 });
    await t.page.goto(`${pageOrigin}/`);
    await t.page.fill('#base-url', mimic.base);
    await t.page.fill('#api-key', 'mimic_wrong');
    await t.page.fill('#agent-id', `agt_${'x'.repeat(400)}`);
    await t.page.click('#agent-connect');
    await waitForPage(t, (p) => p.textContent('#log'), (v) => /401/.test(v ?? ''), 'the error line', 15_000);
    const widths = await t.page.evaluate(`({ page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth })`) as { page: number; view: number };
    expect(widths.page).toBeLessThanOrEqual(widths.view);
  });
});
