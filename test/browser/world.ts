/**
 * What the end-to-end browser tests share: a real mimic listening on loopback (local compute
 * backend, tone voice), a loopback HTTPS media server with a photo and a speech WAV, a
 * loopback model server that answers as OpenAI's streaming chat completions do and calls a
 * server tool, the tool's loopback upstream, and a loopback server for the test pages (its
 * origin allowed by MIMIC_CORS_ORIGINS, as a customer's site would be).
 */
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { wavBytes } from '../../src/compute/local/song.ts';
import { ROOT } from '../helpers/cli.ts';
import { mediaStats, servePages, waitForPage, type MediaStats, type PageFile, type TestPage } from '../helpers/browser.ts';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../helpers/tls.ts';
import { toneSpeech } from '../helpers/tone-voice.ts';
import { cityParameters } from '../helpers/tools.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';

export const PHOTO = join(ROOT, 'assets/presenters/eileen.jpg');
/**
 * The size frames arrive at: the photo and the built-in presenter are 512x512, streamed as
 * they are (stitch) or as the 512x512 crop around the face. The one place to change if the
 * stream renderer picks another size.
 */
export const FRAME = { width: 512, height: 512 } as const;
/**
 * Frames decoded while a sentence plays: enough to say it was seen, not a stray frame. Not a
 * frame rate: a loaded machine shows a 3 s sentence at a few frames a second (the engine drops
 * what its encoder cannot take), and a test must not fail on how busy the machine is.
 */
export const MIN_FRAMES = 10;
/** What the weather tool's upstream answers; the agent's spoken answer must carry it. */
export const FORECAST = 'sunny and 21 degrees';
export const QUESTION = 'What is the weather in Oslo?';
/**
 * The notifications WebSocket's path on mimic (the agents SDK's `wsURL` is the service's
 * origin as ws:// plus this). Set it to the path the notifications socket is served at.
 */
export const NOTIFICATIONS_PATH = '/notifications';

export interface World {
  mimic: LiveService;
  /** https://localhost:<port>: /face.jpg and /speech.wav */
  media: TestServer;
  model: TestServer;
  upstream: TestServer;
  pages: TestServer;
  /** http://127.0.0.1:<port> of the page server (the CORS origin mimic allows). */
  pageOrigin: string;
  close(): Promise<void>;
}

/** A few seconds of speech-shaped sound (the tone voice's words) as a WAV. */
export function speechWav(text = 'Hello from the demo client over loopback'): Buffer {
  const speech = toneSpeech(text, 'kal');
  return wavBytes({ sampleRate: speech.sampleRate, samples: Float32Array.from(speech.pcm, (s) => s / 32768) });
}

const sse = (res: ServerResponse, events: unknown[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end('data: [DONE]\n\n');
};
const delta = (d: object, finish: string | null = null) => ({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: finish }] });

/**
 * The model: asked a question, it calls `get_weather` for Oslo; given the tool's result, it
 * says what the upstream answered (so the answer holds the tool's result only if the tool ran).
 */
function weatherModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = JSON.parse(req.body.toString()) as { messages: { role: string; content: string | null }[] };
  const last = body.messages.at(-1)!;
  if (last.role !== 'tool') {
    sse(res, [
      delta({ tool_calls: [{ index: 0, id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
      delta({}, 'tool_calls'),
    ]);
    return;
  }
  let forecast = 'unknown';
  try {
    forecast = (JSON.parse(last.content ?? '{}') as { body?: { forecast?: string } }).body?.forecast ?? 'unknown';
  } catch {
    /* not the tool's JSON: the answer says unknown and the test fails */
  }
  sse(res, [delta({ content: 'In Oslo it is ' }), delta({ content: `${forecast}. ` }), delta({ content: 'Enjoy your day.' }), delta({}, 'stop')]);
}

/**
 * Starts a world before the tests of the enclosing describe (or file) and closes it after
 * them. The world is read through the returned object once started; `pages` may be built
 * asynchronously (a bundle).
 */
export function useWorld(pages: () => Record<string, PageFile> | Promise<Record<string, PageFile>> = () => ({})): World {
  let started: World | undefined;
  beforeAll(async () => {
    started = await startWorld(await pages());
  }, 120_000);
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as World, {
    get(_, field) {
      if (!started) throw new Error('the world is read before its beforeAll started it');
      return started[field as keyof World];
    },
  });
}

/** Starts everything; `pages` are the test pages, served from the page origin. */
export async function startWorld(pages: Record<string, PageFile>): Promise<World> {
  const wav = speechWav();
  const photo = readFileSync(PHOTO);
  const started: { close(): Promise<void> }[] = [];
  const track = <T extends { close(): Promise<void> }>(s: T): T => (started.push(s), s);
  try {
    const media = track(
      await startTlsServer((req, res) => {
        if (req.path === '/face.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
        if (req.path === '/speech.wav') return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
        res.writeHead(404).end();
      }),
    );
    const model = track(await startTlsServer(weatherModel));
    const upstream = track(
      await startTlsServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ city: new URL(req.path, 'https://x').searchParams.get('city'), forecast: FORECAST, your_key: req.headers['x-api-key'] }));
      }),
    );
    const pageServer = track(await servePages(pages));
    const pageOrigin = `http://127.0.0.1:${pageServer.port}`;
    const mimic = await startLiveService({
      env: { MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_CORS_ORIGINS: pageOrigin, MIMIC_ICE_SERVERS: '[]', MIMIC_ICE_ALLOW: 'loopback' },
      // One self-signed certificate serves every loopback TLS server of this process (test/helpers/tls.ts).
      options: { ca: [media.ca] },
      permissions: ['stitch'],
    });
    started.unshift(mimic);
    return {
      mimic,
      media,
      model,
      upstream,
      pages: pageServer,
      pageOrigin,
      close: () => closeAll(started),
    };
  } catch (err) {
    await closeAll(started);
    throw err;
  }
}

async function closeAll(servers: { close(): Promise<void> }[]): Promise<void> {
  for (const s of servers) await s.close().catch(() => {});
}

async function created(what: string, res: { status: number; body: any }): Promise<string> {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body.id as string;
}

/**
 * An agent on the loopback model (its key CANARY.bearer) with one server tool, `get_weather`,
 * on the loopback upstream (its key CANARY.apiKey, which the upstream echoes back carelessly).
 */
export async function weatherAgent(w: World): Promise<{ agentId: string; toolId: string }> {
  const { api } = w.mimic;
  const secretId = await created('secret', await api('POST', '/secrets', { type: 'bearer', provider: 'openai', token: CANARY.bearer }));
  const toolSecretId = await created('tool secret', await api('POST', '/secrets', { type: 'api_key', provider: 'weather', api_key: CANARY.apiKey }));
  const toolId = await created(
    'tool',
    await api('POST', '/tools', {
      name: 'get_weather',
      description: 'Current weather for a city',
      provider: 'weather-api',
      schema: { parameters: cityParameters },
      config: { type: 'server', url: `${w.upstream.url}/weather`, method: 'GET' },
      auth: { secret_id: toolSecretId },
    }),
  );
  const agentId = await created(
    'agent',
    await api('POST', '/agents', {
      preview_name: 'Weather',
      presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' },
      llm: { provider: 'openai', model: 'gpt-e2e', base_url: `${w.model.url}/v1`, instructions: 'Answer briefly. Use get_weather for weather.', secret_id: secretId, tools: [toolId] },
    }),
  );
  return { agentId, toolId };
}

/**
 * Waits until, after `before`, the page decoded at least MIN_FRAMES more frames of FRAME's
 * size and heard sound (audio energy rose); answers the stats.
 */
export async function expectSpoken(t: TestPage, before: MediaStats | undefined, what: string): Promise<MediaStats> {
  const frames0 = before?.video.framesDecoded ?? 0;
  const energy0 = before?.audio.totalAudioEnergy ?? 0;
  const stats = await waitForPage(t, mediaStats, (s) => s.video.framesDecoded - frames0 >= MIN_FRAMES && s.audio.totalAudioEnergy > energy0, what, 90_000);
  expect({ width: stats.video.frameWidth, height: stats.video.frameHeight }).toEqual(FRAME);
  expect(stats.audio.codec.toLowerCase()).toBe('audio/opus');
  expect(['video/vp8', 'video/h264']).toContain(stats.video.codec.toLowerCase());
  return stats;
}

/**
 * The agent's tool ran once upstream with its key attached, and no credential reached the
 * model (beyond its own key in its Authorization header), the page, or mimic's logs.
 */
export async function expectToolRanAndNoCredentialLeaked(w: World, t: TestPage): Promise<void> {
  expect(w.upstream.received.map((r) => r.path)).toEqual(['/weather?city=Oslo']);
  expect(w.upstream.received[0]!.headers['x-api-key']).toBe(CANARY.apiKey);
  expect(w.model.received.length).toBeGreaterThan(1);
  for (const r of w.model.received) {
    expect(leakedIn(r.body.toString('latin1'))).toEqual([]);
    expect(r.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
  }
  expect(leakedIn(await t.page.content())).toEqual([]);
  expect(leakedIn(t.console.join('\n'))).toEqual([]);
  expect(leakedIn(w.mimic.logs.join('\n'))).toEqual([]);
}
