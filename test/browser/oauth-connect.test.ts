/**
 * Connecting an account, end to end in Chromium, against a certified OpenID Connect provider
 * (oidc-provider) on loopback https: mimic's API starts the attempt, the person signs in and
 * consents on the provider's own pages, mimic's callback stores the grant, and a tool call
 * carries the access token to an API that asks the provider whether it knows it. Then the
 * token expires (mimic's clock), the refresh rotates it, the person revokes the grant at the
 * provider, the next call fails with needs_reauthorization, and connecting again with
 * `secret_id` makes the same secret work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useChromium } from '../helpers/browser.ts';
import type { LiveService } from '../helpers/live-service.ts';
import { startConnectScene, type ConnectScene, type OidcProvider } from '../helpers/oidc-provider.ts';
import type { TestServer } from '../helpers/tls.ts';

const chromium = useChromium();
const CLIENT = { clientId: 'mimic-studio-test', clientSecret: 'oidc-client-secret-6Yh2Kq9Lw3' };
let scene: ConnectScene;
let op: OidcProvider;
let mimic: LiveService;
let api: TestServer;
let context: BrowserContext;
/** Each bearer token the API received, and the grant the provider said it belongs to. */
let seen: ConnectScene['seen'];

beforeAll(async () => {
  scene = await startConnectScene(CLIENT);
  ({ op, mimic, api, seen } = scene);
  context = await chromium.browser.newContext({ ignoreHTTPSErrors: true });
});
afterAll(async () => {
  await context?.close();
  await scene?.close();
});

/** Through the provider's pages: sign in when asked (any login), then consent; ends on mimic's result page. */
async function throughProvider(page: Page, authorizationUrl: string): Promise<string> {
  await page.goto(authorizationUrl);
  for (let step = 0; step < 4 && !page.url().startsWith(mimic.base); step++) {
    if (await page.locator('input[name=login]').count()) {
      await page.fill('input[name=login]', 'person-1');
      await page.fill('input[name=password]', 'any password');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    } else {
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    }
  }
  expect(page.url().startsWith(`${mimic.base}/secrets/oauth2/callback?`), page.url()).toBe(true);
  return (await page.textContent('main')) ?? '';
}

async function connect(body: Record<string, unknown> = {}): Promise<{ id: string; text: string }> {
  const started = await mimic.api('POST', '/secrets/oauth2/connections', {
    provider: 'calendar', issuer: op.issuer, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret,
    scopes: ['openid', 'offline_access', 'calendar'], ...body,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const page = await context.newPage();
  try {
    return { id: started.body.id, text: await throughProvider(page, started.body.authorization_url) };
  } finally {
    await page.close();
  }
}

const callTool = (tool: string) => mimic.api('POST', `/tools/${tool}/calls`, { input: { city: 'Oslo' } });

describe('connecting an account through the provider’s pages', () => {
  it('connects, calls a tool with the token, refreshes with rotation, needs re-authorization after revocation, reconnects', async () => {
    const first = await connect();
    expect(first.text).toContain('Account connected');
    const connection = (await mimic.api('GET', `/secrets/oauth2/connections/${first.id}`)).body;
    expect(connection).toMatchObject({ status: 'connected', issuer: op.issuer });
    const secretId = connection.secret_id as string;
    expect((await mimic.api('GET', `/secrets/${secretId}`)).body).toMatchObject({ type: 'oauth2', status: 'active' });

    const tool = await mimic.api('POST', '/tools', {
      name: 'calendar_events', description: 'Events', provider: 'calendar',
      schema: { parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      config: { type: 'server', url: `${api.url}/events`, method: 'GET' }, auth: { secret_id: secretId },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);
    const ok = await callTool(tool.body.id);
    expect(ok.body.output?.status, JSON.stringify(ok.body)).toBe(200);
    const firstToken = seen.at(-1)!;
    expect(firstToken.grant).toBeTruthy();

    // Two hours on mimic's clock: the access token has expired, the refresh token rotates.
    scene.setOffset(2 * 3600_000);
    const refreshed = await callTool(tool.body.id);
    expect(refreshed.body.output?.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(seen.at(-1)!.token).not.toBe(firstToken.token);
    expect(seen.at(-1)!.grant).toBe(firstToken.grant);

    // The person withdraws access at the provider; once the token expires again the refresh is refused.
    await op.revoke(firstToken.grant!);
    scene.setOffset(4 * 3600_000);
    const refused = await callTool(tool.body.id);
    expect(JSON.stringify(refused.body)).toMatch(/reauthori/i);
    expect((await mimic.api('GET', `/secrets/${secretId}`)).body.status).toBe('needs_reauthorization');

    // Connect again into the same secret: the tool works with a token of the new grant.
    const again = await connect({ secret_id: secretId });
    expect(again.text).toContain('connected again');
    expect((await mimic.api('GET', `/secrets/oauth2/connections/${again.id}`)).body).toMatchObject({ status: 'connected', secret_id: secretId });
    const back = await callTool(tool.body.id);
    expect(back.body.output?.status, JSON.stringify(back.body)).toBe(200);
    expect(seen.at(-1)!.grant).toBeTruthy();
    expect(seen.at(-1)!.grant).not.toBe(firstToken.grant);

    // No credential in mimic's log lines or on its pages.
    const out = [mimic.logs.join('\n'), first.text, again.text];
    for (const credential of [CLIENT.clientSecret, ...seen.map((s) => s.token)]) {
      for (const text of out) expect(text).not.toContain(credential);
    }
  });
});
