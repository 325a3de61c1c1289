/**
 * Connecting an account in the studio, end to end in Chromium, against a certified OpenID
 * Connect provider (oidc-provider) on loopback https: a person signed in to the studio fills
 * "Connect an account", signs in and consents on the provider's own pages, and lands back on
 * the studio, which says connected. A tool call with the new secret carries the provider's
 * token upstream. Then the refresh rotates, the person revokes the grant at the provider, the
 * secrets page shows "Needs reauthorization" with Reconnect, and Reconnect through the
 * provider makes the same secret work again. The client secret and the tokens never reach a
 * page. Screenshots with MIMIC_UPDATE_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import type { LiveService } from '../helpers/live-service.ts';
import { startConnectScene, type ConnectScene, type OidcProvider } from '../helpers/oidc-provider.ts';
import { apiAs, seedPerson, type Person } from '../helpers/studio.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
const chromium = useChromium();
const CLIENT = { clientId: 'mimic-studio-test', clientSecret: 'oidc-client-secret-Vb7Nq2Wx5Pz8' };
let scene: ConnectScene;
let op: OidcProvider;
let mimic: LiveService;
let ada: Person;
let asAda: ReturnType<typeof apiAs>;

beforeAll(async () => {
  scene = await startConnectScene(CLIENT);
  ({ op, mimic } = scene);
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
  asAda = apiAs(mimic.base, ada.key);
});
afterAll(async () => {
  await scene?.close();
});

/** Fills the connect form (reconnecting keeps the name the page put there) and continues to the provider. */
async function fillConnectForm(t: TestPage): Promise<void> {
  if (!(await t.page.inputValue('#connect-provider'))) await t.page.fill('#connect-provider', 'calendar');
  await t.page.fill('#connect-issuer', op.issuer);
  await t.page.fill('#connect-client_id', CLIENT.clientId);
  await t.page.fill('#connect-client_secret', CLIENT.clientSecret);
  await t.page.fill('#connect-scopes', 'openid offline_access calendar');
  await Promise.all([t.page.waitForURL((url) => url.href.startsWith(op.issuer)), t.page.click('#connect-form button[type=submit]')]);
}

/** Through the provider's own pages: sign in when asked (any login), then consent; ends back on the studio. */
async function throughProvider(t: TestPage): Promise<void> {
  for (let step = 0; step < 4 && !t.page.url().startsWith(mimic.base); step++) {
    await t.page.locator('button[type=submit]').first().waitFor();
    if (await t.page.locator('input[name=login]').count()) {
      await t.page.fill('input[name=login]', 'person-1');
      await t.page.fill('input[name=password]', 'any password');
    }
    await Promise.all([t.page.waitForNavigation(), t.page.locator('button[type=submit]').first().click()]);
  }
  expect(t.page.url().startsWith(`${mimic.base}/studio/secrets/connect?connection=oac_`), t.page.url()).toBe(true);
}

const callTool = (tool: string) => asAda('POST', `/tools/${tool}/calls`, { input: { city: 'Oslo' } });

describe('connecting an account in the studio', () => {
  it('connects through the provider’s pages, a tool uses it, revocation shows Reconnect, Reconnect works', async () => {
    const t = await chromium.newPage({ ignoreHTTPSErrors: true });
    const violations: string[] = [];
    await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
    await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.href + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
    const pages: string[] = [];
    t.page.on('load', () => void t.page.content().then((html) => pages.push(html), () => {}));
    await t.page.setViewportSize({ width: 1000, height: 800 });

    // Sign in, then the secrets page's way to "Connect an account".
    await t.page.goto(`${mimic.base}/studio/secrets`);
    await t.page.fill('#email', ada.email);
    await t.page.fill('#password', ada.password);
    await Promise.all([t.page.waitForURL(`${mimic.base}/studio/secrets`), t.page.click('main button[type=submit]')]);
    await Promise.all([t.page.waitForURL(`${mimic.base}/studio/secrets/connect`), t.page.getByRole('link', { name: 'Connect an account (OAuth)' }).click()]);
    expect(await t.page.inputValue('#redirect-uri')).toBe(`${mimic.base}/secrets/oauth2/callback`);

    // A mistake first: an http issuer is refused beside its field, and the secret field is emptied.
    await t.page.fill('#connect-provider', 'calendar');
    await t.page.fill('#connect-issuer', 'http://localhost:1/');
    await t.page.fill('#connect-client_id', CLIENT.clientId);
    await t.page.fill('#connect-client_secret', CLIENT.clientSecret);
    await t.page.click('#connect-form button[type=submit]');
    await waitForPage(t, (p) => p.textContent('#connect-issuer-error'), (s) => (s ?? '') !== '', 'the issuer refused');
    expect(await t.page.textContent('#connect-issuer-error')).toBe('This issuer URL must be an https address (https://…).');
    expect(await t.page.evaluate('document.activeElement?.id')).toBe('connect-issuer');
    expect(await t.page.inputValue('#connect-client_secret')).toBe('');
    expect(new URL(t.page.url()).pathname).toBe('/studio/secrets/connect');
    await t.page.screenshot({ path: screenshot('studio-secrets-connect.png'), fullPage: true });

    // The real connection: the provider's login and consent pages, then back on the studio, connected.
    await fillConnectForm(t);
    await throughProvider(t);
    await waitForPage(t, (p) => p.textContent('#connect-result-title'), (s) => s === 'Account connected', 'the studio saying connected');
    const said = (await t.page.textContent('#connect-result-text'))!;
    expect(said).toMatch(/^calendar is connected: it is stored as the oauth2 secret sec_\w+\. Tools can use it now\./);
    const secretId = /(sec_\w+)/.exec(said)![1]!;
    await t.page.screenshot({ path: screenshot('studio-secrets-connected.png') });
    const binding = (await t.context.cookies()).find((c) => c.name === 'mimic_oauth');
    expect(binding).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/secrets/oauth2/' });

    // A tool call with the new secret carries the provider's token.
    const tool = await asAda('POST', '/tools', {
      name: 'calendar_events', description: 'Events', provider: 'calendar',
      schema: { parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      config: { type: 'server', url: `${scene.api.url}/events`, method: 'GET' }, auth: { secret_id: secretId },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);
    expect((await callTool(tool.body.id)).body.output?.status).toBe(200);
    const first = scene.seen.at(-1)!;
    expect(first.grant).toBeTruthy();

    // The token expires (mimic's clock), the refresh rotates it; the person revokes the grant at the provider; the next refresh is refused.
    scene.setOffset(2 * 3600_000);
    expect((await callTool(tool.body.id)).body.output?.status).toBe(200);
    expect(scene.seen.at(-1)!.token).not.toBe(first.token);
    await op.revoke(first.grant!);
    scene.setOffset(4 * 3600_000);
    expect(JSON.stringify((await callTool(tool.body.id)).body)).toMatch(/reauthori/i);

    // The secrets page: needs reauthorization, with Reconnect; the tool is listed as using it.
    await t.page.goto(`${mimic.base}/studio/secrets`);
    const row = t.page.locator(`#secrets-rows tr[data-secret-id="${secretId}"]`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Status"]').textContent()).toContain('Needs reauthorization');
    expect(await row.locator('td[data-label="Kind"]').textContent()).toBe('OAuth account');
    expect(await row.locator('.used-by').textContent()).toContain('Tool calendar_events');
    const reconnect = row.getByRole('link', { name: 'Reconnect calendar' });
    expect(await reconnect.getAttribute('class')).toBe('button');
    expect(await t.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 'no sideways scroll').toBeLessThanOrEqual(0);
    await t.page.screenshot({ path: screenshot('studio-secrets-reauth.png'), fullPage: true });

    // Reconnect: the same secret, through the provider again.
    await Promise.all([t.page.waitForURL(`${mimic.base}/studio/secrets/connect?secret=${secretId}`), reconnect.click()]);
    await waitForPage(t, (p) => p.textContent('#connect-heading'), (s) => s === 'Reconnect calendar', 'the reconnect heading');
    expect(await t.page.inputValue('#connect-provider')).toBe('calendar');
    await fillConnectForm(t);
    await throughProvider(t);
    await waitForPage(t, (p) => p.textContent('#connect-result-title'), (s) => s === 'Account reconnected', 'the studio saying reconnected');
    expect(await t.page.textContent('#connect-result-text')).toContain(`calendar is connected again: it is stored as the oauth2 secret ${secretId}.`);
    const back = await callTool(tool.body.id);
    expect(back.body.output?.status, JSON.stringify(back.body)).toBe(200);
    expect(scene.seen.at(-1)!.grant).toBeTruthy();
    expect(scene.seen.at(-1)!.grant).not.toBe(first.grant);
    await t.page.goto(`${mimic.base}/studio/secrets`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe('Active');

    // A denial: the person says no at the provider, and the studio says so.
    await t.page.goto(`${mimic.base}/studio/secrets/connect`);
    await fillConnectForm(t);
    for (let step = 0; step < 4 && !t.page.url().startsWith(mimic.base); step++) {
      await t.page.locator('button[type=submit]').first().waitFor();
      const cancel = t.page.locator('a:has-text("Cancel"), button:has-text("Cancel"), a:has-text("abort"), button:has-text("abort")');
      if (!(await t.page.locator('input[name=login]').count()) && (await cancel.count())) {
        await Promise.all([t.page.waitForNavigation(), cancel.first().click()]);
      } else {
        if (await t.page.locator('input[name=login]').count()) {
          await t.page.fill('input[name=login]', 'person-1');
          await t.page.fill('input[name=password]', 'any password');
        }
        await Promise.all([t.page.waitForNavigation(), t.page.locator('button[type=submit]').first().click()]);
      }
    }
    await waitForPage(t, (p) => p.textContent('#connect-result-title'), (s) => s === 'Access was not allowed', 'the studio saying denied');
    expect(await t.page.isVisible('#connect-try-again')).toBe(true);
    await t.page.screenshot({ path: screenshot('studio-secrets-denied.png') });
    await t.page.click('#connect-try-again');
    expect(await t.page.evaluate('document.activeElement?.id')).toBe('connect-provider');

    // No credential on any page the browser showed, nor in mimic's log lines.
    await waitForPage(t, async () => pages.length, (n) => n >= 6, 'the pages recorded');
    for (const credential of [CLIENT.clientSecret, ...scene.seen.map((s) => s.token)]) {
      for (const html of pages) expect(html).not.toContain(credential);
      for (const line of mimic.logs) expect(line).not.toContain(credential);
    }
    // Only the provider's own pages reach off the machine (oidc-provider's development pages ask Google Fonts; refused).
    expect(t.blocked.filter((url) => !url.startsWith('https://fonts.googleapis.com/'))).toEqual([]);
    expect(violations.filter((v) => v.startsWith(mimic.base)), t.console.join('\n')).toEqual([]);
  });
});
