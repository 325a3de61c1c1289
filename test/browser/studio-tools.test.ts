/**
 * The tools and audit pages in headless Chromium: a person makes a tool in the editor, sees a
 * schema error appear while typing and go away when fixed (a JSON syntax error by line and
 * column, then a schema the service refuses, by POST /tools/validate), tries the tool against a
 * loopback upstream that echoes what it got (a bearer secret's canary value is masked: it is
 * never in the page), finds it in the tools list, and sees the call and the sign-in in the
 * audit log through its filters. No CSP violation, nothing fetched off the machine.
 * Screenshots go to docs/images/ with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { echo } from '../helpers/tools.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';
import { STARTER_PARAMETERS as STARTER } from '../../src/studio/routes/pages/tools-editor.tsx';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const chromium = useChromium();
let mimic: LiveService;
let upstream: TestServer;
let ada: Person;
let secretId: string;

beforeAll(async () => {
  upstream = await startTlsServer(echo);
  // The upstream is on loopback: allowed through configuration, as the other tool tests do.
  mimic = await startLiveService({ env: { MIMIC_EGRESS_ALLOW: 'localhost' }, options: { ca: [upstream.ca] } });
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
  const res = await fetch(`${mimic.base}/secrets`, {
    method: 'POST',
    headers: { authorization: `Basic ${ada.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'bearer', provider: 'weather-co', token: CANARY.bearer }),
  });
  expect(res.status).toBe(201);
  secretId = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  await mimic?.close();
  await upstream?.close();
});

/** Everything the page shows and holds: its text, its form values and its markup. */
async function everything(page: Page): Promise<string> {
  const values = (await page.evaluate('[...document.querySelectorAll("input, textarea, select")].map((e) => e.value).join("\\n")')) as string;
  return `${await page.content()}\n${await page.innerText('body')}\n${values}`;
}

async function expectNoCanary(t: TestPage) {
  const text = await everything(t.page);
  expect(text).not.toContain(CANARY.bearer);
  expect(leakedIn(text)).toEqual([]);
}

/** The actions of the audit rows shown, in order. */
const shownActions = (p: Page) => p.evaluate('[...document.querySelectorAll("#audit-rows tr[data-action]")].map((r) => r.dataset.action)') as Promise<string[]>;
const verdict = (p: Page) => p.textContent('#parameters-verdict').then((s) => s ?? '');

/** Moves the caret in the parameters box to just after the first `text`. */
async function caretAfter(page: Page, text: string) {
  await page.evaluate(`(() => {
    const box = document.getElementById('tool-parameters');
    const text = ${JSON.stringify(text)};
    const at = box.value.indexOf(text) + text.length;
    box.focus();
    box.setSelectionRange(at, at);
  })()`);
}

describe('the tools and audit pages in a browser', () => {
  it('makes a tool, checks its schema while typing, tries it (masked), lists it, and finds the call and the sign-in in the audit log', async () => {
    const t = await chromium.newPage();
    const violations: string[] = [];
    await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
    await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
    await t.page.setViewportSize({ width: 1000, height: 800 });

    await t.page.goto(`${mimic.base}/studio/tools`);
    await t.page.fill('#email', ada.email);
    await t.page.fill('#password', ada.password);
    await t.page.click('button[type=submit]');
    await t.page.waitForURL(`${mimic.base}/studio/tools`);
    await waitForPage(t, (p) => p.textContent('#tools-rows'), (s) => (s ?? '').includes('No tools yet'), 'the empty list');

    // A new tool: the starter schema is checked by the service at once.
    await t.page.getByRole('link', { name: 'New tool' }).click();
    await t.page.waitForURL(`${mimic.base}/studio/tools/new`);
    await waitForPage(t, verdict, (s) => s.includes('Valid JSON Schema'), 'the starter schema accepted');
    await t.page.fill('#tool-name', 'get_weather');
    await t.page.fill('#tool-description', 'The weather now in a city');
    await t.page.fill('#tool-provider', 'weather-co');
    await t.page.fill('#tool-url', `${upstream.url}/weather/{city}`);
    await t.page.selectOption('#tool-secret', secretId);
    expect(await t.page.locator('#tool-secret option:checked').textContent()).toBe('weather-co (bearer)');

    // A JSON syntax error while typing: a stray comma after the last brace, by line and column.
    await caretAfter(t.page, '"additionalProperties": false\n}');
    await t.page.keyboard.type(',');
    const syntax = await waitForPage(t, verdict, (s) => s.includes('Not valid JSON'), 'the syntax error');
    expect(syntax).toMatch(/line 8, column 2/);
    expect(await t.page.getAttribute('#tool-parameters', 'aria-invalid')).toBe('true');
    await t.page.keyboard.press('Backspace');
    await waitForPage(t, verdict, (s) => s.includes('Valid JSON Schema'), 'the syntax error gone');

    // A schema the service refuses: "strin" is no JSON type; one letter more and it is.
    await caretAfter(t.page, '"type": "strin');
    await t.page.keyboard.press('Delete');
    await waitForPage(t, verdict, (s) => s.includes('Not a JSON Schema the service accepts'), 'the schema error');
    expect(await t.page.textContent('#parameters-problems')).toContain('Line 4, column 23: properties.city.type');
    await t.page.screenshot({ path: screenshot('studio-tool-editor.png'), fullPage: true });
    // "Show me where" puts the caret on it; typing there fixes it.
    await t.page.click('#parameters-goto');
    expect(await t.page.evaluate('document.activeElement.id + " " + document.activeElement.selectionStart')).toBe(`tool-parameters ${STARTER.indexOf('"string"')}`);
    await caretAfter(t.page, '"type": "strin');
    await t.page.keyboard.type('g');
    await waitForPage(t, verdict, (s) => s.includes('Valid JSON Schema'), 'the schema error gone');
    expect(await t.page.textContent('#parameters-problems')).toBe('');
    expect(await t.page.getAttribute('#tool-parameters', 'aria-invalid')).toBeNull();

    // A placeholder the parameters lack is the URL's problem, beside the URL field.
    await t.page.fill('#tool-url', `${upstream.url}/weather/{town}`);
    await waitForPage(t, (p) => p.textContent('#tool-url-error'), (s) => (s ?? '').includes('{town}'), 'the placeholder refused');
    await t.page.fill('#tool-url', `${upstream.url}/weather/{city}`);
    await waitForPage(t, (p) => p.textContent('#tool-url-error'), (s) => s === '', 'the placeholder accepted');

    await t.page.click('#tool-save');
    await waitForPage(t, (p) => p.textContent('#tool-status'), (s) => (s ?? '').includes('created'), 'the tool created');
    const toolId = new URL(t.page.url()).pathname.split('/').at(-1)!;
    expect(toolId).toMatch(/^tool_/);
    expect(await t.page.textContent('#tool-title')).toBe('Tool get_weather');

    // Try it: the form from the schema; a missing required argument is refused in words, then the call.
    await t.page.locator('#try').waitFor({ state: 'visible' });
    expect(await t.page.textContent('label[for="try-arg-0"]')).toBe('city (required)');
    await t.page.click('#try-call');
    await waitForPage(t, (p) => p.textContent('#try-error'), (s) => (s ?? '').includes('city'), 'the missing argument');
    expect(await t.page.textContent('#try-error')).toMatch(/Invalid tool input: .*city.* required/);
    await t.page.fill('#try-arg-0', 'Lisbon');
    await t.page.click('#try-call');
    await t.page.locator('#try-result').waitFor({ state: 'visible' });
    expect(await t.page.textContent('#try-result-status')).toMatch(/^200 /);
    const body = (await t.page.textContent('#try-result-body')) ?? '';
    expect(body).toContain('/weather/Lisbon');
    // The upstream echoed the Authorization header it got: the page shows it masked.
    expect(body).toMatch(/"authorization": "•+"/);
    expect(await t.page.textContent('#try-result-headers')).toMatch(/x-echo-auth\s*•+/);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
    await expectNoCanary(t);
    await t.page.locator('#try-result').scrollIntoViewIfNeeded();
    await t.page.screenshot({ path: screenshot('studio-tool-try.png'), fullPage: true });

    // JSON mode carries what the form held.
    await t.page.check('#try-mode-json');
    expect(JSON.parse(await t.page.inputValue('#try-json'))).toEqual({ city: 'Lisbon' });

    // The list: kind, method, host, secret.
    await t.page.getByRole('link', { name: 'Tools', exact: true }).first().click();
    await t.page.waitForURL(`${mimic.base}/studio/tools`);
    const row = t.page.locator(`#tools-rows tr[data-tool-id="${toolId}"]`);
    await row.waitFor();
    expect((await row.innerText()).replace(/\s+/g, ' ')).toContain(`get_weather Server GET localhost:${upstream.port} weather-co (bearer)`);
    await t.page.screenshot({ path: screenshot('studio-tools.png'), fullPage: true });
    await expectNoCanary(t);

    // The audit log: everything, then the tool's events, then the sign-ins.
    await t.page.goto(`${mimic.base}/studio/audit`);
    await waitForPage(t, (p) => p.locator('#audit-rows tr[data-action]').count(), (n) => n >= 3, 'the events');
    await t.page.screenshot({ path: screenshot('studio-audit.png'), fullPage: true });
    await t.page.selectOption('#filter-tool', toolId);
    await t.page.click('#audit-filters button[type=submit]');
    await waitForPage(t, shownActions, (a) => a.length > 0 && a.every((x) => x !== 'account.sign_in'), 'the tool filter');
    const toolEvents = await shownActions(t.page);
    // The refused arguments made no call: one use of the secret, and the creation.
    expect(toolEvents).toEqual(['secret.used', 'tool.created']);
    expect(new URL(t.page.url()).searchParams.get('tool_id')).toBe(toolId);
    const used = t.page.locator('#audit-rows tr[data-action="secret.used"]').first();
    expect((await used.innerText()).replace(/\s+/g, ' ')).toMatch(/Secret used in a call Succeeded tool get_weather, secret weather-co \(bearer\) upstream answered 200/);

    await t.page.selectOption('#filter-tool', '');
    await t.page.selectOption('#filter-action', 'account.*');
    await t.page.click('#audit-filters button[type=submit]');
    await waitForPage(t, shownActions, (a) => a.length === 1 && a[0] === 'account.sign_in', 'the sign-in filter');
    expect((await t.page.locator('#audit-rows tr[data-action]').innerText()).replace(/\s+/g, ' ')).toMatch(/Sign-in Succeeded session ses_\S+ from 127\.0\.0\.1/);
    expect(new URL(t.page.url()).search).toBe('?action=account.*');
    // The filter is in the address: a reload shows the same.
    await t.page.reload();
    await waitForPage(t, (p) => p.locator('#audit-rows tr[data-action]').count(), (n) => n === 1, 'the filter after a reload');
    expect(await t.page.inputValue('#filter-action')).toBe('account.*');
    await expectNoCanary(t);

    // A phone's width: nothing scrolls sideways.
    await t.page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/tools', `/studio/tools/${toolId}`, '/studio/tools/new', '/studio/audit']) {
      await t.page.goto(`${mimic.base}${path}`);
      await t.page.locator('main h1').waitFor();
      await t.page.waitForLoadState('networkidle');
      const overflow = await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      // What sticks out, for the failure message.
      const wide = await t.page.evaluate('[...document.querySelectorAll("main *")].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === "visible").map((e) => e.tagName + "#" + e.id + " " + e.scrollWidth + "/" + e.clientWidth).slice(0, 8).join(", ")');
      expect(overflow, `${path}: ${wide}`).toBeLessThanOrEqual(0);
    }

    // Delete it from the list, after the confirmation; its editor then says it is gone.
    await t.page.setViewportSize({ width: 1000, height: 800 });
    await t.page.goto(`${mimic.base}/studio/tools`);
    await t.page.getByRole('button', { name: 'Delete tool get_weather' }).click();
    await t.page.getByRole('button', { name: 'Delete tool', exact: true }).click();
    await waitForPage(t, (p) => p.textContent('#tools-status'), (s) => (s ?? '').includes('deleted'), 'the deletion reported');
    expect(await t.page.textContent('#tools-rows')).toContain('No tools yet');
    await t.page.goto(`${mimic.base}/studio/tools/${toolId}`);
    await waitForPage(t, (p) => p.textContent('#tool-status'), (s) => (s ?? '').includes('no such tool'), 'the missing tool said');
    expect(await t.page.isVisible('#tool-form')).toBe(false);

    expect(t.blocked).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    expect(t.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    // The failed requests are refusals the page expects: bodies checked as typed and the refused arguments (400), the deleted tool (404).
    expect(new Set(t.console.filter((l) => l.startsWith('error')).map((l) => /status of (\d+)/.exec(l)?.[1]))).toEqual(new Set(['400', '404']));
    expect(leakedIn(mimic.logs.join('\n'))).toEqual([]);
  });
});
