/**
 * The studio's agents pages in headless Chromium (issue 20, §4.2, §1.3, §6.1): a person signs
 * in, makes an agent in the form (a wrong model URL and temperature refused beside their
 * fields first), talks to it in the page (a typed message answered by a loopback model, shown
 * in the conversation and spoken on the live stream: the remote video plays and sound
 * arrives), creates a client key for origin A, and the key is refused from origin B (a page on
 * another loopback origin gets 403) and accepted from A, where the embed snippet the studio
 * gave runs unmodified (the agents SDK from npm in place of its CDN URL) and talks to the
 * agent too. Then the key is revoked and refused, the agent renamed; no CSP violation, no
 * request off the machine, no sideways scroll at phone width. Screenshots of each page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { channelLog, mediaStats, useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { seedPerson, type Person } from '../helpers/studio.ts';
import { startHttpServer, startTlsServer, type TestServer } from '../helpers/tls.ts';
import { chunk, writeEvents } from '../llm/model-server.ts';
import { cityParameters } from '../helpers/tools.ts';
import { FRAME, MIN_FRAMES } from './world.ts';

const SHOTS = process.env.MIMIC_UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url).pathname : mkdtempSync(join(tmpdir(), 'mimic-studio-shots-'));
const screenshot = (name: string) => join(SHOTS, name);
/** The phone-width look, for whoever changes the CSS to check by eye (not in the docs). */
const PHONE_SHOTS = mkdtempSync(join(tmpdir(), 'mimic-studio-phone-'));

/** What the loopback model says to anything: the test looks for it in the page and hears it on the stream. */
const ANSWER = 'Hello! I am Ava, and I can help you plan a trip.';
const QUESTION = 'Who are you?';

/**
 * How long a step that renders may take: the local CPU renderer speaks on a machine that other
 * work may load many times over (a cap, not an expectation).
 */
const SLOW = 300_000;

const chromium = useChromium();
let mimic: LiveService;
let model: TestServer;
let pages: TestServer;
/** The page origin the client key allows, and another one (the same server under another name). */
let originA: string;
let originB: string;
/** What the page server answers at /embed.html (the snippet, once the studio gave it). */
let embedHtml = '';
let ada: Person;

beforeAll(async () => {
  model = await startTlsServer((_req, res) => writeEvents(res, [chunk({ content: 'Hello! I am Ava, ' }), chunk({ content: 'and I can help you plan a trip.' }), chunk({}, 'stop')]));
  pages = await startHttpServer((req, res) => {
    const path = req.path.split('?')[0];
    if (path === '/probe.html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>a customer page</title><p>probe</p>');
    if (path === '/embed.html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><meta charset="utf-8"><title>shop</title></head><body>${embedHtml}</body></html>`);
    res.writeHead(404).end();
  });
  originA = `http://127.0.0.1:${pages.port}`;
  originB = `http://localhost:${pages.port}`;
  mimic = await startLiveService({
    env: { MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_ICE_SERVERS: '[]', MIMIC_ICE_ALLOW: 'loopback' },
    options: { ca: [model.ca] },
  });
  ada = await seedPerson(mimic.running.services, { email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' });
}, 120_000);
afterAll(async () => {
  await mimic?.close();
  await model?.close();
  await pages?.close();
});

/** One call of the API as Ada's programs make it (her API key). */
async function asAda(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${mimic.base}${path}`, {
    method,
    headers: { authorization: `Basic ${ada.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** A request with the client key from a page of `origin`, as a browser sends it (Origin set by Chromium, not by the test). */
async function fromPage(t: TestPage, origin: string, key: string, path: string): Promise<{ status: number; body: any }> {
  await t.page.goto(`${origin}/probe.html`);
  return (await t.page.evaluate(
    async ([url, auth]) => {
      const res = await fetch(url!, { headers: { authorization: auth! } });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    [`${mimic.base}${path}`, `Client-Key ${key}.visitor-7_conn1`],
  )) as { status: number; body: any };
}

/** The agents SDK from npm as one browser module: what the snippet's CDN URL stands for here. */
async function sdkBundle(): Promise<string> {
  const out = await build({
    stdin: { contents: "export * from '@d-id/client-sdk';", resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return out.outputFiles[0]!.text;
}

async function noSidewaysScroll(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('main h1').waitFor();
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached', timeout: 1000 }).catch(() => {});
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow, url).toBeLessThanOrEqual(0);
}

describe('the agents pages of the studio', () => {
  it('makes an agent, talks to it live, and gives it a client key that works from its origin only', async () => {
    // What the form picks from: a secret holding the model's key, and a tool.
    const secret = await asAda('POST', '/secrets', { type: 'bearer', provider: 'loopback-llm', token: 'sk-loopback-test-0123456789' });
    expect(secret.status).toBe(201);
    const tool = await asAda('POST', '/tools', {
      name: 'get_weather',
      description: 'Current weather for a city',
      provider: 'weather-api',
      schema: { parameters: cityParameters },
      config: { type: 'server', url: 'https://localhost:9/weather', method: 'GET' },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);

    const t = await chromium.newPage();
    const violations: string[] = [];
    await t.page.exposeFunction('__reportCsp', (v: string) => void violations.push(v));
    await t.page.addInitScript(`addEventListener('securitypolicyviolation', (e) => window.__reportCsp(location.pathname + ': ' + e.violatedDirective + ' ' + e.blockedURI))`);
    await t.page.setViewportSize({ width: 1100, height: 900 });

    // Sign in; back to the agents page, empty.
    await t.page.goto(`${mimic.base}/studio/agents`);
    await t.page.fill('#email', ada.email);
    await t.page.fill('#password', ada.password);
    await t.page.click('button[type=submit]');
    await t.page.waitForURL(`${mimic.base}/studio/agents`);
    await waitForPage(t, (p) => p.textContent('#agents-rows'), (s) => (s ?? '').includes('No agents yet'), 'the empty list');

    // New agent: the pickers fill from the API.
    await t.page.getByRole('link', { name: 'New agent' }).click();
    await t.page.waitForURL(`${mimic.base}/studio/agents/new`);
    await waitForPage(t, (p) => p.locator('#agent-form').getAttribute('aria-busy'), (v) => v === 'false', 'the form ready');
    expect(await t.page.locator('input[name="presenter"]').count()).toBeGreaterThan(1);
    expect(await t.page.locator('input[name="presenter"]:checked').count(), 'a presenter picked to start with').toBe(1);
    expect(await t.page.locator(`#llm-secret option[value="${secret.body.id}"]`).count()).toBe(1);
    expect(await t.page.locator('#agent-voice option').count()).toBeGreaterThan(1);

    await t.page.fill('#agent-name', 'Ava');
    // The presenter picker is a radio group: the keyboard moves the choice (Eileen, the first, then Grace).
    await t.page.locator('input[name="presenter"]:checked').focus();
    await t.page.keyboard.press('ArrowRight');
    expect(await t.page.locator('input[name="presenter"]:checked').getAttribute('value')).toBe('grace-Hq4mW8zL2c');
    await t.page.getByLabel('Grace').check();
    await t.page.selectOption('#agent-voice', { label: 'RMS (Flite) (en-US)' });
    await t.page.fill('#llm-model', 'gpt-studio');
    await t.page.selectOption('#llm-secret', secret.body.id);
    await t.page.fill('#llm-instructions', 'You are Ava, a travel agent. Answer in one sentence.');
    await t.page.getByLabel(/get_weather/).check();
    await t.page.fill('#agent-greetings', 'Hi, I am Ava. Where would you like to go?');
    // First wrong: a URL that is not http(s) and a temperature past 2: each refused beside its field.
    await t.page.fill('#llm-base-url', 'ftp://models.example');
    await t.page.fill('#llm-temperature', '5');
    await t.page.click('#agent-save');
    await waitForPage(t, (p) => p.textContent('#err-base-url'), (s) => (s ?? '') !== '', 'the base URL refused');
    expect(await t.page.textContent('#err-temperature')).toContain('<= 2');
    expect(await t.page.getAttribute('#llm-base-url', 'aria-invalid')).toBe('true');
    expect(await t.page.getAttribute('#llm-temperature', 'aria-invalid')).toBe('true');
    expect(await t.page.evaluate('document.activeElement.id')).toBe('llm-base-url');
    expect(await t.page.textContent('#agent-form-error')).toContain('correct the fields');
    await t.page.screenshot({ path: screenshot('studio-agent-form.png'), fullPage: true });
    expect((await asAda('GET', '/agents/me')).body.agents).toEqual([]);

    await t.page.fill('#llm-base-url', `${model.url}/v1`);
    await t.page.fill('#llm-temperature', '0.3');
    await t.page.click('#agent-save');
    await t.page.waitForURL(/\/studio\/agents\/agt_[A-Za-z0-9]+$/);
    const agentId = new URL(t.page.url()).pathname.split('/').at(-1)!;
    const stored = (await asAda('GET', `/agents/${agentId}`)).body;
    expect(stored).toMatchObject({
      preview_name: 'Ava',
      presenter: { type: 'clip', presenter_id: 'grace-Hq4mW8zL2c', voice: { type: 'flite', voice_id: 'en-US-flite-rms' } },
      llm: { provider: 'openai', model: 'gpt-studio', base_url: `${model.url}/v1`, secret_id: secret.body.id, temperature: 0.3, tools: [tool.body.id], instructions: 'You are Ava, a travel agent. Answer in one sentence.' },
      greetings: ['Hi, I am Ava. Where would you like to go?'],
    });

    // The agent's page: its facts, the greeting, then the live video and a typed message.
    await waitForPage(t, (p) => p.textContent('#agent-name'), (s) => s === 'Ava', 'the agent loaded');
    // The facts follow the name: the presenter's is looked up first (GET /clips/presenters).
    await waitForPage(t, (p) => p.textContent('#agent-facts'), (s) => (s ?? '').includes('Grace'), "the agent's facts");
    expect(await t.page.textContent('#chat-log')).toContain('Where would you like to go?');
    await t.page.click('#talk-connect');
    await waitForPage(t, (p) => p.textContent('#talk-status'), (s) => (s ?? '').startsWith('Live'), 'the stream live', SLOW);
    const before = await mediaStats(t.page);
    await t.page.fill('#chat-message', QUESTION);
    await t.page.keyboard.press('Enter');
    await waitForPage(t, (p) => p.locator('#chat-log li.chat-agent:not(.chat-pending)').last().textContent(), (s) => (s ?? '').includes(ANSWER), 'the answer shown', SLOW).catch(async (err: Error) => {
      throw new Error(`${err.message}\ndata channel: ${JSON.stringify(await channelLog(t.page))}\nstatus: ${await t.page.textContent('#talk-status')}, error: ${await t.page.textContent('#chat-error')}\nmodel: ${model.received.length} requests\nmimic: ${mimic.logs.slice(-20).join('\n')}`);
    });
    expect(await t.page.locator('#chat-log li.chat-user').last().textContent()).toContain(QUESTION);
    // Spoken: frames of the presenter and sound arrive, and the video element plays them.
    const heard = await waitForPage(t, mediaStats, (m) => m.video.framesDecoded - before.video.framesDecoded >= MIN_FRAMES && m.audio.totalAudioEnergy > before.audio.totalAudioEnergy, 'the answer seen and heard in the studio', SLOW).catch(async (err: Error) => {
      throw new Error(`${err.message}\ndata channel: ${JSON.stringify(await channelLog(t.page))}\nmimic: ${mimic.logs.slice(-20).join('\n')}`);
    });
    expect({ width: heard.video.frameWidth, height: heard.video.frameHeight }).toEqual(FRAME);
    const playing = (await t.page.evaluate(`(() => { const v = document.getElementById('talk-video'); return { paused: v.paused, width: v.videoWidth, time: v.currentTime }; })()`)) as { paused: boolean; width: number; time: number };
    expect(playing.paused).toBe(false);
    expect(playing.width).toBeGreaterThan(0);
    expect(playing.time).toBeGreaterThan(0);
    // The model read the instructions, the question, and its key from the vault.
    const asked = JSON.parse(model.received.at(-1)!.body.toString()) as { messages: { role: string; content: string }[] };
    expect(asked.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are Ava') });
    expect(asked.messages.at(-1)).toMatchObject({ role: 'user', content: QUESTION });
    expect(model.received.at(-1)!.headers.authorization).toBe('Bearer sk-loopback-test-0123456789');
    await t.page.screenshot({ path: screenshot('studio-agent.png'), fullPage: true });

    // A client key for origin A, shown once with the embed snippet.
    await t.page.fill('#ck-origins', `${originA}/shop`);
    await t.page.click('#ck-create');
    await waitForPage(t, (p) => p.textContent('#ck-origins-error'), (s) => (s ?? '') !== '', 'a path refused beside the origins');
    expect(await t.page.textContent('#ck-origins-error')).toContain(`Line 1 (${originA}/shop)`);
    await t.page.fill('#ck-origins', originA);
    await t.page.fill('#ck-name', 'shop');
    await t.page.click('#ck-create');
    await t.page.locator('#ck-created-value').waitFor({ state: 'visible' });
    const clientKey = await t.page.inputValue('#ck-created-value');
    expect(clientKey).toMatch(/^mimic_ck_\S+$/);
    const snippet = await t.page.inputValue('#ck-snippet');
    expect(snippet).toContain(`clientKey: ${JSON.stringify(clientKey)}`);
    expect(snippet).toContain(`createAgentManager(${JSON.stringify(agentId)}`);
    expect(snippet).toContain(`baseURL: ${JSON.stringify(mimic.base)}`);
    expect(snippet).toContain(`wsURL: ${JSON.stringify(`${mimic.base.replace('http', 'ws')}/notifications`)}`);
    const sdkVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@d-id/client-sdk']!;
    const sdkUrl = `https://cdn.jsdelivr.net/npm/@d-id/client-sdk@${sdkVersion}/+esm`;
    expect(snippet, 'the snippet loads the SDK version the tests run').toContain(sdkUrl);
    await waitForPage(t, (p) => p.locator('#ck-rows tr[data-client-key-id]').count(), (n) => n === 1, 'the key listed');
    expect(await t.page.textContent('#ck-rows')).toContain(originA);
    expect(await t.page.textContent('#ck-rows')).not.toContain(clientKey);
    await t.page.locator('#keys-heading').scrollIntoViewIfNeeded();
    await t.page.screenshot({ path: screenshot('studio-agent-keys.png'), fullPage: true });

    // From origin B: refused. From origin A: accepted.
    const visitor = await chromium.newPage();
    const refused = await fromPage(visitor, originB, clientKey, `/agents/${agentId}/runtime`);
    expect(refused.status).toBe(403);
    expect(refused.body.kind).toBe('PermissionError');
    const accepted = await fromPage(visitor, originA, clientKey, `/agents/${agentId}/runtime`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ id: agentId, name: 'Ava' });

    // The snippet itself, pasted into a page of origin A: the SDK connects with the key and the agent answers.
    embedHtml = snippet;
    const shop = await chromium.newPage();
    const bundle = await sdkBundle();
    await shop.page.route(sdkUrl, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', headers: { 'access-control-allow-origin': '*' }, body: bundle }));
    await shop.page.goto(`${originA}/embed.html`);
    await waitForPage(shop, (p) => p.evaluate(`Boolean(document.getElementById('mimic-agent-video').srcObject)`), Boolean, 'the snippet connected', SLOW);
    await shop.page.fill('#mimic-agent-question', QUESTION);
    await shop.page.click('#mimic-agent-form button');
    await waitForPage(shop, (p) => p.textContent('#mimic-agent-messages'), (s) => (s ?? '').includes(`Ava: ${ANSWER}`), 'the answer in the snippet\'s page', SLOW);
    expect(shop.blocked).toEqual([]);
    expect(shop.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await shop.page.close();

    // Revoked in the page (after the confirmation): refused from A as well.
    await t.page.getByRole('button', { name: /^Revoke client key mimic_ck_/ }).click();
    await t.page.getByRole('button', { name: 'Revoke client key', exact: true }).click();
    await waitForPage(t, (p) => p.textContent('#ck-status'), (s) => (s ?? '').includes('revoked'), 'the revocation reported');
    expect(await t.page.textContent('#ck-rows')).toContain('No client keys yet');
    expect((await fromPage(visitor, originA, clientKey, `/agents/${agentId}/runtime`)).status).toBe(401);

    // Stop the video; edit the agent's name; the list shows it.
    await t.page.click('#talk-disconnect');
    await waitForPage(t, (p) => p.textContent('#talk-status'), (s) => s === 'Video stopped.', 'the video stopped');
    await t.page.getByRole('link', { name: 'Edit', exact: true }).click();
    await t.page.waitForURL(`${mimic.base}/studio/agents/${agentId}/edit`);
    await waitForPage(t, (p) => p.inputValue('#agent-name'), (v) => v === 'Ava', 'the form filled');
    expect(await t.page.isChecked('input[name="presenter"][value="grace-Hq4mW8zL2c"]')).toBe(true);
    expect(await t.page.inputValue('#llm-secret')).toBe(secret.body.id);
    expect(await t.page.isChecked(`input[name="tool"][value="${tool.body.id}"]`)).toBe(true);
    await t.page.fill('#agent-name', 'Ava Travel');
    await t.page.fill('#llm-temperature', '');
    await t.page.click('#agent-save');
    await t.page.waitForURL(`${mimic.base}/studio/agents/${agentId}`);
    await waitForPage(t, (p) => p.textContent('#agent-name'), (s) => s === 'Ava Travel', 'the new name');
    const edited = (await asAda('GET', `/agents/${agentId}`)).body;
    expect(edited.llm.temperature, 'an emptied field is removed').toBeUndefined();
    expect(edited.llm.secret_id).toBe(secret.body.id);
    await t.page.goto(`${mimic.base}/studio/agents`);
    await waitForPage(t, (p) => p.locator('#agents-rows tr[data-agent-id]').count(), (n) => n === 1, 'the agent listed');
    const row = (await t.page.textContent('#agents-rows')) ?? '';
    expect(row).toContain('Ava Travel');
    expect(row).toContain('Grace');
    expect(row).toContain('gpt-studio on localhost');
    await t.page.screenshot({ path: screenshot('studio-agents.png'), fullPage: true });

    // A phone's width: nothing scrolls sideways on any of the four pages.
    await t.page.setViewportSize({ width: 360, height: 740 });
    for (const path of ['/studio/agents', '/studio/agents/new', `/studio/agents/${agentId}/edit`, `/studio/agents/${agentId}`]) await noSidewaysScroll(t.page, `${mimic.base}${path}`);
    await t.page.screenshot({ path: join(PHONE_SHOTS, 'studio-agent-phone.png'), fullPage: true });

    // Deleted from its form, after the confirmation (Escape cancels it first): the list is empty, the API says 404.
    await t.page.setViewportSize({ width: 1100, height: 900 });
    await t.page.goto(`${mimic.base}/studio/agents/${agentId}/edit`);
    await waitForPage(t, (p) => p.inputValue('#agent-name'), (v) => v === 'Ava Travel', 'the form filled');
    await t.page.click('#agent-delete');
    await t.page.locator('#agent-delete-dialog').waitFor({ state: 'visible' });
    await t.page.keyboard.press('Escape');
    await t.page.locator('#agent-delete-dialog').waitFor({ state: 'hidden' });
    expect((await asAda('GET', `/agents/${agentId}`)).status).toBe(200);
    await t.page.click('#agent-delete');
    await t.page.getByRole('button', { name: 'Delete agent', exact: true }).last().click();
    await t.page.waitForURL(`${mimic.base}/studio/agents`);
    await waitForPage(t, (p) => p.textContent('#agents-rows'), (s) => (s ?? '').includes('No agents yet'), 'the empty list');
    expect((await asAda('GET', `/agents/${agentId}`)).status).toBe(404);

    expect([...t.blocked, ...visitor.blocked]).toEqual([]);
    expect(violations, t.console.join('\n')).toEqual([]);
    // No script error; the failed requests are the refusals the test asked for (the form's 400, the origin's 400).
    expect(t.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    expect(t.console.filter((l) => l.startsWith('error') && !l.includes('status of 400'))).toEqual([]);
  }, 1_200_000);
});
