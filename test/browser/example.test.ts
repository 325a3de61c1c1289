/**
 * examples/stream/ as a new user meets it (issue 10, 5.1): opened from mimic itself in
 * headless Chromium, it connects to a talk stream of a photo, speaks a typed sentence, and
 * talks to an agent that answers by calling a server tool; the page decodes frames of the
 * expected size, hears the speech, and shows the data-channel events and the answer.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { channelLog, mediaStats, useChromium, waitForPage } from '../helpers/browser.ts';
import { FORECAST, QUESTION, expectSpoken, expectToolRanAndNoCredentialLeaked, weatherAgent, useWorld } from './world.ts';

/** The page's event log, one line per entry (without the time stamps). */
const logLines = (page: Page) => page.$$eval('#log li', (items) => items.map((li) => li.querySelector('span')?.textContent ?? '')) as Promise<string[]>;
const streamIdIn = (lines: string[]) => /^stream (\S+) created$/.exec(lines.find((l) => /^stream \S+ created$/.test(l)) ?? '')?.[1];

describe('examples/stream/ in a browser', () => {
  const chromium = useChromium();
  const w = useWorld();

  it('connects to a talk stream, says a typed sentence, and disconnects', async () => {
    const t = await chromium.newPage();
    await t.page.goto(`${w.mimic.base}/examples/stream/`);
    await t.page.fill('#api-key', w.mimic.key);
    await t.page.fill('#photo-url', `${w.media.url}/face.jpg`);
    await t.page.click('#talk-connect');
    await waitForPage(t, (p) => p.isEnabled('#talk-speak'), Boolean, 'the talk stream connected');
    await waitForPage(t, (p) => p.textContent('#status'), (s) => s === '/talks/streams: connected', 'the peer connection');
    const before = await mediaStats(t.page);

    await t.page.fill('#sentence', 'Hello there, I am a photo speaking live in your browser.');
    await t.page.click('#talk-speak');
    await expectSpoken(t, before, 'the typed sentence seen and heard');
    const lines = await waitForPage(t, logLines, (l) => l.some((x) => x.startsWith('stream/done')), 'stream/done in the page log', 60_000);
    expect(lines).toContain('data channel open');
    expect(lines.some((l) => /^speak: started/.test(l))).toBe(true);
    expect(lines.findIndex((l) => l.startsWith('stream/started'))).toBeLessThan(lines.findIndex((l) => l.startsWith('stream/done')));
    expect(lines.filter((l) => /error/i.test(l))).toEqual([]);

    const streamId = streamIdIn(lines)!;
    await t.page.click('#talk-disconnect');
    await waitForPage(t, logLines, (l) => l.includes(`stream ${streamId} closed`), 'the stream deleted');
    expect((await mediaStats(t.page)).states).toEqual(['closed']);
    expect(await t.page.textContent('#status')).toBe('disconnected');
    expect(t.blocked).toEqual([]);
  }, 300_000);

  it('talks to an agent that answers by calling a server tool, and says the answer', async () => {
    const { agentId } = await weatherAgent(w);
    const t = await chromium.newPage();
    await t.page.goto(`${w.mimic.base}/examples/stream/#agent=${agentId}`);
    await t.page.fill('#api-key', w.mimic.key);
    expect(await t.page.inputValue('#agent-id')).toBe(agentId);
    await t.page.click('#agent-connect');
    await waitForPage(t, (p) => p.isEnabled('#agent-ask'), Boolean, 'the agent stream and chat');
    await waitForPage(t, (p) => p.textContent('#status'), (s) => s?.endsWith('/streams: connected') ?? false, 'the peer connection');

    await t.page.fill('#question', QUESTION);
    await t.page.click('#agent-ask');
    const answer = await waitForPage(t, (p) => p.textContent('#answer'), (s) => Boolean(s) && s !== '…', 'the answer', 60_000);
    expect(answer).toContain(FORECAST);
    // The tool really ran upstream, with the model's arguments.
    await expectToolRanAndNoCredentialLeaked(w, t);

    await expectSpoken(t, undefined, 'the answer seen and heard');
    await waitForPage(t, channelLog, (l) => l.some((m) => m.direction === 'in' && m.data.startsWith('stream/done')), 'stream/done', 60_000);
    const lines = await logLines(t.page);
    expect(lines.some((l) => l.startsWith('stream/started'))).toBe(true);
    // The answer's data-channel line is logged as text, not percent-encoded.
    const said = lines.filter((l) => l.startsWith('chat/answer '));
    expect(said.length).toBeGreaterThan(0);
    for (const l of said) expect(l).not.toMatch(/%[0-9A-F]{2}/);
    expect(said.join(' ')).toContain(FORECAST);
    expect(lines.filter((l) => /error/i.test(l))).toEqual([]);

    await t.page.click('#agent-disconnect');
    const streamId = streamIdIn(lines)!;
    await waitForPage(t, logLines, (l) => l.includes(`stream ${streamId} closed`), 'the agent stream deleted');
    expect(await t.page.textContent('#status')).toBe('disconnected');
    expect(t.blocked).toEqual([]);
  }, 300_000);
});

describe('examples/stream/ in Chromium as users run it (host candidates as mDNS names)', () => {
  const chromium = useChromium({ mdnsCandidates: true });
  const w = useWorld();

  it('every ICE post carrying a <uuid>.local candidate is answered, and the stream comes up on the addresses the browser\'s checks reveal', async () => {
    const t = await chromium.newPage();
    const ice: { candidate: string; status: number }[] = [];
    t.page.on('requestfinished', (req) => {
      if (req.method() !== 'POST' || !req.url().endsWith('/ice')) return;
      void req.response().then((res) => ice.push({ candidate: String((req.postDataJSON() as { candidate?: unknown }).candidate ?? ''), status: res?.status() ?? 0 }));
    });
    await t.page.goto(`${w.mimic.base}/examples/stream/`);
    await t.page.fill('#api-key', w.mimic.key);
    await t.page.fill('#photo-url', `${w.media.url}/face.jpg`);
    await t.page.click('#talk-connect');
    await waitForPage(t, (p) => p.textContent('#status'), (s) => s === '/talks/streams: connected', 'the peer connection');
    expect((await mediaStats(t.page)).states).toEqual(['connected']);
    // The end of candidates is the last post.
    await waitForPage(t, async () => ice.some((x) => x.candidate === ''), Boolean, 'the end of candidates posted');
    const posted = ice.filter((x) => x.candidate !== '');
    expect(posted.length).toBeGreaterThan(0);
    // Chromium told no address, only names; mimic answered each at once (refused, not resolved) and still connected:
    // its side learnt the browser's address from the browser's connectivity checks (peer-reflexive candidates).
    for (const x of posted) expect(x.candidate).toMatch(/ [0-9a-f-]{36}\.local /);
    expect(ice.every((x) => x.status === 200)).toBe(true);
    expect((await t.page.$$eval('#log li.error', (l) => l.length))).toBe(0);
    await t.page.click('#talk-disconnect');
    await waitForPage(t, (p) => p.textContent('#status'), (s) => s === 'disconnected', 'the stream deleted');
  }, 300_000);
});
