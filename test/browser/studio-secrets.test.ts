/**
 * The secrets page in headless Chromium: a person stores a bearer secret through its form (the
 * field is emptied), a tool and an agent are made with it by API and the page says so beside
 * it, a rotation through the dialog reaches the upstream on the next tool call, deleting it is
 * refused in words naming the tool and the agent, and once they let go it is deleted. The
 * values never appear in the page's HTML or in any answer the page received. No CSP
 * violation, nothing off the machine, no horizontal scroll at 360 px. Screenshots with
 * MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { apiAs, seedPerson, type Person } from '../helpers/studio.ts';
import { startTlsServer, testCertificate, type TestServer } from '../helpers/tls.ts';
import { CANARY } from '../helpers/canaries.ts';
import { toolBody } from '../helpers/tools.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const chromium = useChromium();
let mimic: LiveService;
let upstream: TestServer;
let ada: Person;
let asAda: ReturnType<typeof apiAs>;

beforeAll(async () => {
  mimic = await startLiveService({ env: { MIMIC_EGRESS_ALLOW: 'localhost' }, options: { ca: [(await testCertificate()).cert] } });
  upstream = await startTlsServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"temperature":21}'));
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
  asAda = apiAs(mimic.base, ada.key);
});
afterAll(async () => {
  await mimic?.close();
  await upstream?.close();
});

/** Signs in on the sign-in page the browser was sent to, and waits to be back at `path`. */
async function signIn(t: TestPage, path: string): Promise<void> {
  await t.page.goto(`${mimic.base}${path}`);
  await t.page.fill('#email', ada.email);
  await t.page.fill('#password', ada.password);
  await Promise.all([t.page.waitForURL(`${mimic.base}${path}`), t.page.click('main button[type=submit]')]);
}

/** Everything mimic sent the page (pages and API answers), for the value check. */
function recordAnswers(t: TestPage): string[] {
  const answers: string[] = [];
  t.page.on('response', (res) => {
    if (!res.url().startsWith(mimic.base) || res.url().includes('/studio/assets/')) return;
    void res.text().then((text) => answers.push(`${res.url()} ${text}`), () => {});
  });
  return answers;
}

/** Reports every CSP violation on mimic's pages. */
async function watchCsp(t: TestPage): Promise<string[]> {
  const violations: string[] = [];
  await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
  await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.href + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
  return violations;
}

const rowOf = (t: TestPage, provider: string) => t.page.locator('#secrets-rows tr', { has: t.page.locator('strong', { hasText: provider }) });

describe('the secrets page', () => {
  it('stores a bearer secret, shows what uses it, rotates it, refuses to delete it while used, never shows a value', async () => {
    const t = await chromium.newPage();
    const violations = await watchCsp(t);
    const answers = recordAnswers(t);
    await t.page.setViewportSize({ width: 1100, height: 800 });
    await signIn(t, '/studio/secrets');
    await waitForPage(t, (p) => p.textContent('#secrets-rows'), (s) => (s ?? '').includes('No secrets yet'), 'the empty list');

    // A bearer secret through its form: the value field is emptied and the row appears.
    await t.page.fill('#secret-bearer-provider', 'weather');
    await t.page.fill('#secret-bearer-token', 'short');
    await t.page.click('#secret-form-bearer button[type=submit]');
    await waitForPage(t, (p) => p.textContent('#secret-bearer-token-error'), (s) => (s ?? '') !== '', 'the refusal beside the field');
    expect(await t.page.inputValue('#secret-bearer-token')).toBe('');
    expect(await t.page.getAttribute('#secret-bearer-token', 'aria-invalid')).toBe('true');
    await t.page.fill('#secret-bearer-token', CANARY.bearer);
    await t.page.click('#secret-form-bearer button[type=submit]');
    await waitForPage(t, (p) => p.textContent('#secrets-status'), (s) => (s ?? '').includes('stored'), 'the secret stored');
    expect(await t.page.inputValue('#secret-bearer-token')).toBe('');
    expect(await t.page.inputValue('#secret-bearer-provider')).toBe('');
    const row = rowOf(t, 'weather');
    await row.waitFor();
    const secretId = (await row.getAttribute('data-secret-id'))!;
    expect(await row.textContent()).toContain('Nothing uses it yet');

    // The other kinds: an API key in its own header, a username and password.
    await t.page.check('input[name="secret-type"][value="api_key"]');
    await t.page.fill('#secret-api_key-provider', 'crm');
    await t.page.fill('#secret-api_key-api_key', CANARY.apiKey);
    await t.page.fill('#secret-api_key-header_name', 'X-Crm-Key');
    await t.page.click('#secret-form-api_key button[type=submit]');
    await rowOf(t, 'crm').waitFor();
    expect(await rowOf(t, 'crm').textContent()).toContain('in X-Crm-Key');
    await t.page.check('input[name="secret-type"][value="basic"]');
    expect(await t.page.isVisible('#secret-form-bearer')).toBe(false);
    await t.page.fill('#secret-basic-provider', 'ledger');
    await t.page.fill('#secret-basic-username', CANARY.basicUser);
    await t.page.fill('#secret-basic-password', CANARY.basicPassword);
    await t.page.click('#secret-form-basic button[type=submit]');
    await rowOf(t, 'ledger').waitFor();

    // A tool and an agent use the bearer secret (by API); the page says so.
    const tool = await asAda('POST', '/tools', toolBody(`${upstream.url}/v1?q={city}`, { secretId, name: 'get_weather' }));
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);
    const agent = await asAda('POST', '/agents', {
      preview_name: 'Emma',
      presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' },
      llm: { provider: 'openai', model: 'gpt-4o-mini', base_url: `${upstream.url}/llm/v1`, instructions: 'Be brief.', secret_id: secretId, tools: [tool.body.id] },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    await t.page.reload();
    await waitForPage(t, (p) => rowOf({ ...t, page: p }, 'weather').textContent(), (s) => (s ?? '').includes('Agent Emma'), 'the usage shown');
    const used = (await row.locator('.used-by').textContent())!;
    expect(used).toContain('Tool get_weather');
    expect(used).toContain('Agent Emma (model key; through get_weather)');
    expect(await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 'no sideways scroll').toBeLessThanOrEqual(0);
    await t.page.screenshot({ path: screenshot('studio-secrets.png'), fullPage: true });

    // Rotate through the dialog: the next tool call sends the new token.
    const call = async () => (await asAda('POST', `/tools/${tool.body.id}/calls`, { input: { city: 'Oslo' } })).body;
    expect((await call()).output?.status).toBe(200);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
    await row.getByRole('button', { name: 'Rotate weather' }).click();
    await t.page.locator('#secret-rotate-dialog').waitFor({ state: 'visible' });
    expect(await t.page.evaluate('document.activeElement?.id')).toBe('rotate-token');
    await t.page.fill('#rotate-token', CANARY.rotatedBearer);
    await t.page.screenshot({ path: screenshot('studio-secrets-rotate.png') });
    // Enter saves (the dialog's first button is Cancel).
    await t.page.keyboard.press('Enter');
    await waitForPage(t, (p) => p.textContent('#secrets-status'), (s) => (s ?? '').includes('rotated'), 'the rotation');
    expect(await t.page.isVisible('#secret-rotate-dialog')).toBe(false);
    expect(await t.page.locator('#rotate-token').count()).toBe(0);
    expect((await call()).output?.status).toBe(200);
    expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY.rotatedBearer}`);
    expect(await row.locator('td[data-label="Last changed"]').textContent()).not.toBe('never');

    // Delete while used: refused, in words.
    await row.getByRole('button', { name: 'Delete weather' }).click();
    await t.page.locator('#secret-delete-dialog').waitFor({ state: 'visible' });
    await t.page.getByRole('button', { name: 'Delete secret', exact: true }).click();
    await waitForPage(t, (p) => p.textContent('#secrets-error'), (s) => (s ?? '') !== '', 'the refusal');
    expect(await t.page.textContent('#secrets-error')).toBe('weather was not deleted: the tool get_weather and the agent Emma still use it. Give them another secret or delete them first.');
    expect(await row.count()).toBe(1);

    // Once they let go, it goes.
    expect((await asAda('DELETE', `/agents/${agent.body.id}`)).status).toBe(200);
    expect((await asAda('DELETE', `/tools/${tool.body.id}`)).status).toBe(200);
    await t.page.reload();
    await waitForPage(t, (p) => rowOf({ ...t, page: p }, 'weather').textContent(), (s) => (s ?? '').includes('Nothing uses it yet'), 'the usage gone');
    await row.getByRole('button', { name: 'Delete weather' }).click();
    await t.page.getByRole('button', { name: 'Delete secret', exact: true }).click();
    await waitForPage(t, (p) => p.textContent('#secrets-status'), (s) => (s ?? '').includes('deleted'), 'the deletion');
    expect(await row.count()).toBe(0);
    expect((await asAda('GET', `/secrets/${secretId}`)).status).toBe(404);

    // A phone's width: nothing scrolls sideways, and rows are cards.
    await t.page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/secrets', '/studio/secrets/connect']) {
      await t.page.goto(`${mimic.base}${path}`);
      await t.page.locator('main h1').waitFor();
      if (path === '/studio/secrets') await rowOf(t, 'crm').waitFor();
      const overflow = await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await t.page.goto(`${mimic.base}/studio/secrets`);
    await rowOf(t, 'crm').waitFor();
    await t.page.screenshot({ path: screenshot('studio-secrets-phone.png'), fullPage: true });

    // No value anywhere the page was given: its HTML now, and every answer it received.
    const values = [CANARY.bearer, CANARY.rotatedBearer, CANARY.apiKey, CANARY.basicUser, CANARY.basicPassword];
    const html = await t.page.content();
    await waitForPage(t, async () => answers.length, (n) => n > 10, 'the answers recorded');
    for (const value of values) {
      expect(html).not.toContain(value);
      for (const answer of answers) expect(answer, answer.slice(0, 120)).not.toContain(value);
      for (const line of mimic.logs) expect(line).not.toContain(value);
    }
    expect(answers.some((a) => a.includes('/secrets?limit=50') && a.includes('"used_by"'))).toBe(true);

    expect(t.blocked).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    // The two refusals the test asked for (the short token 400, the delete 409) are the only failed requests.
    expect(t.console.filter((l) => l.startsWith('pageerror') || l.startsWith('error'))).toEqual([
      'error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      'error: Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
  });
});
