/**
 * Every studio page at a fixed address (src/studio/routes/pages/catalogue.ts) in Chromium, checked by axe-core (the accessibility engine that browser
 * audits use) against WCAG 2.2 A and AA: labels, names, contrast, landmarks, ARIA. Each page
 * is checked as it is once its data has loaded, at desktop and at phone width (where nothing
 * may scroll sideways either), signed out for the pages a visitor sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { useChromium } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { STUDIO_PAGES } from '../../src/studio/routes/pages/catalogue.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/**
 * The pages whose screenshot this test takes (the others are taken by their own tests, with
 * data in them): docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1, else a temporary folder.
 */
const SHOTS_DIR = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const SHOTS: Readonly<Record<string, string>> = {
  '/studio/': 'studio-home.png',
  '/studio/forgot-password': 'studio-forgot-password.png',
  '/studio/invite?token=bench': 'studio-set-password.png',
};

/** Every page at a fixed address (the studio's catalogue): a signed-in person's, and a visitor's. */
const SIGNED_IN = STUDIO_PAGES.filter((p) => p.signedIn).map((p) => p.path);
const SIGNED_OUT = STUDIO_PAGES.filter((p) => !p.signedIn).map((p) => p.path);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe's violations on the page as it is now, each with where it is. */
async function audit(page: Page): Promise<string[]> {
  // Runtime evaluation is not script the page loads, so the studio's CSP does not apply to it.
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG)} } }).then((r) => r.violations)`)) as Violation[];
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('main h1').waitFor();
  // The page's own API calls (lists, the token) have answered.
  await page.waitForLoadState('networkidle');
}

const chromium = useChromium();
let mimic: LiveService;
let grace: Person;

beforeAll(async () => {
  mimic = await startLiveService();
  grace = await seedPerson(mimic.running.services, { email: 'grace@example.com', password: 'a long enough password', name: 'Grace Hopper' });
});
afterAll(async () => {
  await mimic?.close();
});

describe('the studio is accessible', () => {
  it('every page passes axe (WCAG 2.2 A and AA) at desktop and phone width, and nothing scrolls sideways on a phone', async () => {
    const t = await chromium.newPage();
    const found: string[] = [];
    const check = async (path: string) => {
      for (const size of [{ width: 1100, height: 800 }, { width: 360, height: 740 }]) {
        await t.page.setViewportSize(size);
        await visit(t.page, `${mimic.base}${path}`);
        if (size.width > 360 && SHOTS[path]) await t.page.screenshot({ path: join(SHOTS_DIR, SHOTS[path]), fullPage: true });
        for (const v of await audit(t.page)) found.push(`${path} at ${size.width}px: ${v}`);
        const overflow = (await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        if (size.width === 360 && overflow > 0) found.push(`${path} at 360px scrolls sideways by ${overflow}px`);
      }
    };
    for (const path of SIGNED_OUT) await check(path);
    await t.page.goto(`${mimic.base}/studio/sign-in`);
    await t.page.fill('#email', grace.email);
    await t.page.fill('#password', grace.password);
    await t.page.click('button[type=submit]');
    await t.page.waitForURL(`${mimic.base}/studio/`);
    for (const path of SIGNED_IN) await check(path);
    expect(found, t.console.join('\n')).toEqual([]);
    // The audit sees what it should: a field with no label, added to the page, is reported.
    await t.page.evaluate(`document.querySelector('main').append(Object.assign(document.createElement('input'), { type: 'text' }))`);
    expect((await audit(t.page)).join('\n')).toMatch(/^label \(critical\)/m);
    expect(t.blocked).toEqual([]);
  });
});
