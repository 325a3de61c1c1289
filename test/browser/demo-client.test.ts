/**
 * The hosted service's public browser demo (de-id/live-streaming-demo, streaming-client-api.js)
 * against mimic in headless Chromium: its behaviour re-created in fixtures/demo-client.js,
 * configured as its users do (an api.json with mimic's base URL, an API key and the service),
 * from a page on another origin, for both services it offers ('talks' from a photo, 'clips'
 * from a presenter, the demo's default). Connect, wait for stream/ready, speak its audio
 * script, then its text script (a vendor voice id, SSML with a break), then Destroy. The page
 * decodes frames of the photo's size and hears each script, sees stream/started and
 * stream/done for each, and every call it makes is answered with a success.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { channelLog, mediaStats, useChromium, waitForPage, type TestPage } from '../helpers/browser.ts';
import { expectSpoken, useWorld } from './world.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const label = (id: string) => `document.getElementById('${id}').innerText`;

/** One call the page made to mimic, in the order the page made them; `status`/`response` once answered. */
interface Call {
  method: string;
  path: string;
  request: any;
  status?: number;
  response?: any;
}

/** Records, from outside the page, every request it sends to `base` and the answer to each. */
function recordCalls(t: TestPage, base: string): Call[] {
  const calls: Call[] = [];
  const byRequest = new Map<object, Call>();
  const json = (text: string | null | undefined) => {
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return text;
    }
  };
  t.page.on('request', (req) => {
    if (!req.url().startsWith(`${base}/`) || req.method() === 'OPTIONS') return;
    const call: Call = { method: req.method(), path: req.url().slice(base.length), request: json(req.postData()) };
    calls.push(call);
    byRequest.set(req, call);
  });
  t.page.on('response', async (res) => {
    const call = byRequest.get(res.request());
    if (!call) return;
    const body = json(await res.text().catch(() => ''));
    call.response = body;
    call.status = res.status();
  });
  return calls;
}

const answered = (t: TestPage, calls: Call[], what: string, match: (c: Call) => boolean, from = 0) =>
  waitForPage(t, async () => calls.slice(from).find((c) => match(c) && c.status !== undefined), (c) => c !== undefined, what) as Promise<Call>;

describe('the public demo client, unmodified apart from base URL and key', () => {
  const chromium = useChromium();
  const w = useWorld(() => ({ '/': fixture('demo-client.html'), '/demo-client.js': fixture('demo-client.js') }));

  it.each(['talks', 'clips'] as const)('%s: connects, speaks its audio and its text script, and is destroyed', async (service) => {
    const t = await chromium.newPage();
    const calls = recordCalls(t, w.mimic.base);
    await t.page.route('**/api.json', (route) => route.fulfill({ json: { key: w.mimic.key, url: w.mimic.base, service } }));
    await t.page.addInitScript(
      `window.DEMO_MEDIA = ${JSON.stringify({ source_url: `${w.media.url}/face.jpg`, audio_url: `${w.media.url}/speech.wav`, presenter_id: 'eileen-Nc7kQ2rT5x' })};`,
    );
    await t.page.goto(`${w.pageOrigin}/`);
    const streams = `/${service}/streams`;

    await t.page.click('#connect-button');
    const create = await answered(t, calls, 'the stream created', (c) => c.method === 'POST' && c.path === streams);
    expect(create.status).toBe(201);
    expect(create.response).toMatchObject({ id: expect.any(String), session_id: expect.any(String), offer: { type: 'offer', sdp: expect.stringContaining('m=application') }, ice_servers: expect.any(Array) });
    const { id: streamId, session_id: sessionId } = create.response as { id: string; session_id: string };
    const sdp = await answered(t, calls, 'the SDP answer posted', (c) => c.path === `${streams}/${streamId}/sdp`);
    expect(sdp.status).toBe(200);
    await waitForPage(t, (p) => p.evaluate(label('peer-status-label')), (s) => s === 'connected', 'the peer connection');

    // stream_warmup: mimic streams a short idle clip, then stream/ready (the demo adds its second).
    // (The demo also goes ahead 5 s after connecting without it: the channel itself must carry it.)
    const log = await waitForPage(t, channelLog, (l) => l.length > 0, 'stream/ready on the data channel', 60_000);
    expect(log[0]).toEqual({ label: 'JanusDataChannel', direction: 'in', data: expect.stringMatching(/^stream\/ready(:|$)/) });
    await waitForPage(t, (p) => p.evaluate(label('stream-event-label')), (s) => s === 'ready', 'the demo ready to speak');
    // The end of candidates went up as the session id alone, and was accepted like every candidate.
    await answered(t, calls, 'the end of candidates', (c) => c.path === `${streams}/${streamId}/ice` && c.request?.candidate === undefined);
    const ice = calls.filter((c) => c.path === `${streams}/${streamId}/ice`);
    expect(ice.filter((c) => c.request.candidate === undefined).map((c) => c.request)).toEqual([{ session_id: sessionId }]);

    const videoIds: string[] = [];
    for (const button of ['audio', 'text'] as const) {
      const before = await mediaStats(t.page);
      const from = calls.length;
      await t.page.click(`#${button}-button`);
      const play = await answered(t, calls, `the ${button} script posted`, (c) => c.method === 'POST' && c.path === `${streams}/${streamId}`, from);
      expect(play.status, JSON.stringify(play.response)).toBe(200);
      expect(play.response).toMatchObject({ status: 'started', session_id: sessionId, duration: expect.any(Number) });
      videoIds.push(play.response.video_id);
      await expectSpoken(t, before, `the ${button} script seen and heard`);
      await waitForPage(t, async () => (await channelLog(t.page)).filter((m) => m.data.startsWith('stream/done')).length, (n) => n === videoIds.length, `stream/done for the ${button} script`, 90_000);
      expect(await t.page.evaluate(label('stream-event-label'))).toBe('done');
    }
    const events = (await channelLog(t.page)).filter((m) => m.direction === 'in');
    expect(events.map((m) => m.data.split(':')[0])).toEqual(['stream/ready', 'stream/started', 'stream/done', 'stream/started', 'stream/done']);
    // stream/started and stream/done name the video the script post answered.
    const named = events.slice(1).map((m) => JSON.parse(m.data.slice(m.data.indexOf(':') + 1)).metadata.videoId);
    expect(named).toEqual([videoIds[0], videoIds[0], videoIds[1], videoIds[1]]);

    await t.page.click('#destroy-button');
    const del = await answered(t, calls, 'the stream deleted', (c) => c.method === 'DELETE');
    expect(del.status).toBe(200);
    await waitForPage(t, (p) => p.evaluate(label('peer-status-label')), (s) => s === '', 'the demo closed its peer connection');
    // Every call the demo made was answered with a success.
    expect(calls.filter((c) => c.status === undefined || c.status >= 300).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
    // Gone on the server: another script for it is refused.
    const again = await w.mimic.api('POST', `${streams}/${streamId}`, { script: { type: 'text', input: 'Hello?' }, session_id: sessionId });
    expect(again.status).toBe(404);
    expect(t.blocked).toEqual([]);
  }, 300_000);

  it('talks with stream_warmup off: speaks as soon as the page allows it (signaling stable), no stream/ready', async () => {
    const t = await chromium.newPage();
    const calls = recordCalls(t, w.mimic.base);
    await t.page.route('**/api.json', (route) => route.fulfill({ json: { key: w.mimic.key, url: w.mimic.base, service: 'talks' } }));
    await t.page.addInitScript(`window.DEMO_MEDIA = ${JSON.stringify({ source_url: `${w.media.url}/face.jpg`, audio_url: `${w.media.url}/speech.wav`, stream_warmup: false })};`);
    await t.page.goto(`${w.pageOrigin}/`);

    await t.page.click('#connect-button');
    // The demo's own gate: a stable signaling state is enough, the SDP answer may still be on its way.
    // A page that never reaches 'stable' says which of its calls were answered (one run under a double load timed out with no signaling state at all).
    await waitForPage(t, (p) => p.evaluate(label('signaling-status-label')), (s) => s === 'stable', 'the answer set locally').catch((err: Error) => {
      throw new Error(`${err.message}\ncalls: ${JSON.stringify(calls.map((c) => `${c.method} ${c.path} ${c.status ?? 'unanswered'}`))}`);
    });
    await t.page.click('#audio-button');
    const create = await answered(t, calls, 'the stream created', (c) => c.method === 'POST' && c.path === '/talks/streams');
    expect(create.request).toMatchObject({ stream_warmup: false });
    const play = await answered(t, calls, 'the audio script posted', (c) => c.method === 'POST' && c.path === `/talks/streams/${create.response.id}`);
    expect(play.status, JSON.stringify(play.response)).toBe(200);
    await expectSpoken(t, undefined, 'the audio script seen and heard');
    await waitForPage(t, (p) => p.evaluate(label('stream-event-label')), (s) => s === 'done', 'stream/done', 90_000);
    expect((await channelLog(t.page)).filter((m) => m.direction === 'in').map((m) => m.data.split(':')[0])).toEqual(['stream/started', 'stream/done']);

    await t.page.click('#destroy-button');
    expect((await answered(t, calls, 'the stream deleted', (c) => c.method === 'DELETE')).status).toBe(200);
    expect(calls.filter((c) => c.status === undefined || c.status >= 300).map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
  }, 300_000);
});
