/**
 * The hosted service's public browser demo (de-id/live-streaming-demo, streaming-client-api.js)
 * against mimic in headless Chromium: its call sequence (fixtures/demo-client.js), configured
 * only with mimic's base URL and an API key, from a page on another origin. Connect, wait for
 * stream/ready, Start (an audio script with config.stitch), then Destroy; the page decodes
 * frames of the photo's size, hears the speech, and sees stream/started and stream/done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { channelLog, mediaStats, useChromium, waitForPage } from '../helpers/browser.ts';
import { expectSpoken, startWorld, type World } from './world.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const label = (id: string) => `document.getElementById('${id}').innerText`;

describe('the public demo client, unmodified apart from base URL and key', () => {
  const chromium = useChromium();
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ '/': fixture('demo-client.html'), '/demo-client.js': fixture('demo-client.js') });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('connects to a talk stream, speaks an audio script, and is destroyed', async () => {
    const t = await chromium.newPage();
    await t.page.addInitScript(
      `window.DID_API = ${JSON.stringify({ url: w.mimic.base, key: w.mimic.key, service: 'talks' })};
       window.DEMO_MEDIA = ${JSON.stringify({ source_url: `${w.media.url}/face.jpg`, audio_url: `${w.media.url}/speech.wav` })};`,
    );
    await t.page.goto(`${w.pageOrigin}/`);

    await t.page.click('#connect-button');
    const created = (await waitForPage(t, (p) => p.evaluate('window.demoStream') as Promise<{ streamId: string; sessionId: string; createStatus: number; sdpStatus?: number } | undefined>, (s) => s?.sdpStatus !== undefined, 'the SDP answer posted'))!;
    expect(created).toMatchObject({ createStatus: 201, sdpStatus: 200, streamId: expect.any(String), sessionId: expect.any(String) });
    await waitForPage(t, (p) => p.evaluate(label('peer-status-label')), (s) => s === 'connected', 'the peer connection');
    // stream_warmup: mimic streams a short idle clip, then stream/ready (the demo adds its second).
    // (The demo also goes ahead 5 s after connecting without it: the channel itself must carry it.)
    const log = await waitForPage(t, channelLog, (l) => l.length > 0, 'stream/ready on the data channel', 60_000);
    expect(log[0]).toEqual({ label: 'JanusDataChannel', direction: 'in', data: expect.stringMatching(/^stream\/ready(:|$)/) });
    await waitForPage(t, (p) => p.evaluate(label('stream-event-label')), (s) => s === 'ready', 'the demo ready to speak');
    const beforeSpeech = await mediaStats(t.page);

    await t.page.click('#start-button');
    await waitForPage(t, (p) => p.evaluate('window.demoStream.playStatus'), (s) => s !== undefined, 'the script posted');
    const play = (await t.page.evaluate('window.demoStream')) as { playStatus: number; playBody: { status: string; session_id: string } };
    expect(play.playStatus).toBe(200);
    expect(play.playBody).toMatchObject({ status: 'started', session_id: created.sessionId });

    await expectSpoken(t, beforeSpeech, 'the audio script seen and heard');
    await waitForPage(t, (p) => p.evaluate(label('stream-event-label')), (s) => s === 'done', 'stream/done', 60_000);
    expect(await t.page.evaluate(label('streaming-status-label'))).not.toBe('');
    const events = (await channelLog(t.page)).filter((m) => m.direction === 'in').map((m) => m.data.split(':')[0]);
    expect(events).toEqual(['stream/ready', 'stream/started', 'stream/done']);
    const started = (await channelLog(t.page)).find((m) => m.data.startsWith('stream/started:'))!;
    expect(JSON.parse(started.data.slice('stream/started:'.length))).toMatchObject({ metadata: { videoId: expect.any(String) } });

    await t.page.click('#destroy-button');
    await waitForPage(t, (p) => p.evaluate('window.demoStream.deleteStatus'), (s) => s !== undefined, 'the stream deleted');
    expect(await t.page.evaluate('window.demoStream.deleteStatus')).toBe(200);
    // Gone on the server: another script for it is refused.
    const again = await w.mimic.api('POST', `/talks/streams/${created.streamId}`, { script: { type: 'text', input: 'Hello?' }, session_id: created.sessionId });
    expect(again.status).toBe(404);
    expect(t.blocked).toEqual([]);
  }, 300_000);
});
