/**
 * The browser tooling itself: Debian's Chromium launches headless through playwright-core,
 * loads a page from a loopback server, connects two peer connections inside the page (fake
 * camera and microphone, no prompt), and the stats helpers see the frames, the sound and the
 * data-channel message arrive. Anything not on loopback is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { channelLog, mediaStats, servePages, useChromium, waitForPage, type MediaStats } from '../helpers/browser.ts';
import type { TestServer } from '../helpers/tls.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const chromium = useChromium();
let pages: TestServer;

beforeAll(async () => {
  pages = await servePages({ '/': fixture('loopback.html'), '/loopback.js': fixture('loopback.js') });
});
afterAll(async () => {
  await pages?.close();
});

describe('headless Chromium', () => {
  it('runs WebRTC on loopback inside a page, and the stats show frames, sound and data-channel messages', async () => {
    const t = await chromium.newPage();
    await t.page.goto(pages.url.replace('localhost', '127.0.0.1') + '/');
    const sent = (await waitForPage(t, (p) => p.evaluate('window.sentVideo'), Boolean, 'the fake camera')) as { width: number; height: number };
    expect(sent.width).toBeGreaterThan(0);

    const stats = await waitForPage<MediaStats>(t, mediaStats, (s) => s.video.framesDecoded > 25 && s.audio.totalAudioEnergy > 0, 'frames and sound on the receiving peer');
    expect(stats.peers).toBe(2);
    expect(stats.states).toEqual(['connected', 'connected']);
    expect([stats.video.frameWidth, stats.video.frameHeight]).toEqual([sent.width, sent.height]);
    expect(stats.audio.totalSamplesReceived).toBeGreaterThan(0);
    expect(stats.audio.codec).toBe('audio/opus');

    const messages = await waitForPage(t, channelLog, (log) => log.some((m) => m.direction === 'in'), 'the data-channel message');
    expect(messages).toEqual([
      { label: 'smoke', direction: 'out', data: 'hello over loopback' },
      { label: 'smoke', direction: 'in', data: 'hello over loopback' },
    ]);
    expect(t.blocked).toEqual([]);
  });

  it('refuses every request that would leave the machine', async () => {
    const t = await chromium.newPage();
    await t.page.goto(pages.url + '/');
    const outcome = await t.page.evaluate(`fetch('https://example.com/x').then(() => 'reached', (e) => 'refused: ' + e.name)`);
    expect(outcome).toBe('refused: TypeError');
    expect(t.blocked).toContain('https://example.com/x');
    const ws = await t.page.evaluate(`new Promise((resolve) => { const s = new WebSocket('wss://example.com/socket'); s.onopen = () => resolve('open'); s.onclose = () => resolve('closed'); })`);
    expect(ws).toBe('closed');
    expect(t.blocked).toContain('wss://example.com/socket');
  });
});
