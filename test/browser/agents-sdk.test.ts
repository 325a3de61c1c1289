/**
 * The agents SDK from npm (`@d-id/client-sdk`), bundled unmodified into a test page with
 * esbuild, against mimic in headless Chromium, from another origin: createAgentManager with
 * mimic's base URL, WebSocket URL and an API key; connect (runtime, notifications socket,
 * agent stream, chat); chat a question the agent answers with a server tool; the answer
 * arrives in the SDK's messages and is seen and heard on the stream; disconnect.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { useChromium, waitForPage } from '../helpers/browser.ts';
import { FORECAST, NOTIFICATIONS_PATH, QUESTION, expectSpoken, expectToolRanAndNoCredentialLeaked, weatherAgent, useWorld } from './world.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
/** The SDK and the page's script in one browser module (the SDK's package as npm ships it). */
async function bundleSdkPage(): Promise<string> {
  const out = await build({
    entryPoints: [fixture('agents-sdk.js')],
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

interface SdkEvent {
  type: string;
  data: any;
}
const sdkEvents = (page: Page) => page.evaluate('window.sdkEvents') as Promise<SdkEvent[]>;
const lastAnswer = (events: SdkEvent[]) =>
  events
    .filter((e) => e.type === 'messages')
    .flatMap((e) => (e.data.messages as { role: string; content: string }[]).filter((m) => m.role === 'assistant'))
    .at(-1)?.content ?? '';

const chromium = useChromium();
const w = useWorld(async () => ({ '/': fixture('agents-sdk.html'), '/agents-sdk.js': { body: await bundleSdkPage(), type: 'text/javascript' } }));

describe('the agents SDK bundled into a page', () => {
  it('calls only mimic, with the API key as Basic <key>~<connection id>, and sends no analytics', async () => {
    const t = await chromium.newPage();
    const sent: { method: string; url: string; authorization?: string }[] = [];
    t.page.on('request', (r) => void sent.push({ method: r.method(), url: r.url(), authorization: r.headers().authorization }));
    const wsURL = `${w.mimic.base.replace(/^http/, 'ws')}${NOTIFICATIONS_PATH}`;
    await t.page.addInitScript(`window.SDK_CONFIG = ${JSON.stringify({ agentId: 'agt_nobody', baseURL: w.mimic.base, wsURL, key: w.mimic.key })};`);
    await t.page.goto(`${w.pageOrigin}/`);
    await waitForPage(t, (p) => p.evaluate('window.sdkLoaded === true'), Boolean, 'the SDK bundle');
    // An agent that does not exist: the SDK's first call (its runtime) is refused with 404, and connect fails.
    const outcome = await t.page.evaluate(`window.sdk.connect().then(() => 'connected', (e) => 'failed: ' + (e && e.message))`);
    expect(outcome).toMatch(/^failed: /);
    const api = sent.filter((r) => !r.url.startsWith(w.pageOrigin));
    expect(api.length).toBeGreaterThan(0);
    for (const r of api) {
      expect(r.url.startsWith(`${w.mimic.base}/agents/agt_nobody/`), r.url).toBe(true);
      expect(r.authorization).toMatch(new RegExp(`^Basic ${w.mimic.key}~\\S+$`));
    }
    expect(t.blocked).toEqual([]);
  });
});

describe('the agents SDK from npm, unmodified apart from base URL and key', () => {
  it('connects to an agent, chats, and hears the answer the agent got from its server tool', async () => {
    const { agentId } = await weatherAgent(w);
    const t = await chromium.newPage();
    const wsURL = `${w.mimic.base.replace(/^http/, 'ws')}${NOTIFICATIONS_PATH}`;
    await t.page.addInitScript(`window.SDK_CONFIG = ${JSON.stringify({ agentId, baseURL: w.mimic.base, wsURL, key: w.mimic.key })};`);
    const deletes: number[] = [];
    t.page.on('response', (res) => {
      if (res.request().method() === 'DELETE' && /\/agents\/[^/]+\/streams\/[^/]+$/.test(new URL(res.url()).pathname)) deletes.push(res.status());
    });
    await t.page.goto(`${w.pageOrigin}/`);
    await waitForPage(t, (p) => p.evaluate('window.sdkLoaded === true'), Boolean, 'the SDK bundle');

    const connected = (await t.page.evaluate('window.sdk.connect()')) as { streamType: string | null };
    expect(connected).toBeDefined();
    let events = await sdkEvents(t.page);
    expect(events.find((e) => e.type === 'agent')?.data).toMatchObject({ id: agentId });
    expect(events.filter((e) => e.type === 'connection').map((e) => e.data.state)).toContain('connected');
    // The SDK handed its MediaStream to the page (which tracks it held then depends on timing; the stats check them).
    expect(events.some((e) => e.type === 'src-object')).toBe(true);

    await t.page.evaluate(`window.sdk.chat(${JSON.stringify(QUESTION)})`);
    events = await waitForPage(t, sdkEvents, (e) => lastAnswer(e).includes(FORECAST), 'the answer in the SDK\'s messages', 60_000);
    // Shown once, not twice (the text went out over the socket, or in the chat answer, not both).
    const finalMessages = events.filter((e) => e.type === 'messages').at(-1)!.data.messages as { role: string; content: string }[];
    expect(finalMessages.filter((m) => m.role === 'assistant' && m.content.includes(FORECAST))).toHaveLength(1);
    expect(finalMessages.find((m) => m.role === 'user')?.content).toBe(QUESTION);
    await expectToolRanAndNoCredentialLeaked(w, t);

    await expectSpoken(t, undefined, 'the answer seen and heard through the SDK');
    // A legacy (not fluent) stream: the SDK tells talking from the frames and the data channel's
    // stream/started, as onVideoStateChange START then STOP (activity states are for fluent streams).
    events = await waitForPage(t, sdkEvents, (e) => e.some((x) => x.type === 'video' && x.data === 'START'), 'the SDK saw the agent talk', 60_000);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);

    await t.page.evaluate('window.sdk.disconnect()');
    events = await sdkEvents(t.page);
    expect(events.filter((e) => e.type === 'connection').at(-1)?.data.state).toBe('disconnected');
    // The SDK closes its peer connection first, then DELETEs the stream mimic may have ended already: a success either way.
    await waitForPage(t, async () => deletes.length, (n) => n > 0, 'the SDK\'s DELETE of its stream');
    expect(deletes).toEqual([200]);
    // Nothing left the machine (analytics off; the page may reach loopback only).
    expect(t.blocked).toEqual([]);
  }, 300_000);
});
