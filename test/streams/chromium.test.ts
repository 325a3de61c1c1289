/**
 * Codec negotiation with a real browser: headless Chromium decodes what mimic sends, H.264
 * (compatibility_mode off) and VP8 (on), and hears the Opus track. Needs Debian's chromium
 * (the project's setup installs it; MIMIC_CHROMIUM names another binary).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PRESENTER, connect, streamSuite } from './helpers.ts';
import { answerInChromium, hasChromium, launchChromium, type ChromiumPeer } from '../helpers/chromium-peer.ts';

const suite = streamSuite();
let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasChromium)('a Chromium client', () => {
  it.each([
    ['off', 'video/H264'],
    ['on', 'video/VP8'],
  ])('compatibility_mode %s: the browser decodes %s frames and receives Opus, and hears the data channel events', async (mode, codec) => {
    const { h } = suite.make();
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, compatibility_mode: mode, stream_warmup: true, fluent: true }, { answer: (offer) => answerInChromium(browser!, offer) }));
    await s.peer.waitFor('stream/ready');
    await s.peer.waitUntil(() => s.peer.frames > 5 && s.peer.audioChunks > 5, `${codec} frames decoded`);
    expect((await (s.peer as ChromiumPeer).stats()).codec.toLowerCase()).toBe(codec.toLowerCase());
    const spoken = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'Hello from a real browser.' } } });
    expect(spoken.status).toBe(200);
    await s.peer.waitFor('stream/done');
    expect(s.peer.messages.filter((m) => m.startsWith('stream/started')).length).toBe(1);
  });
});
