import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESENTER, streamSuite } from './helpers.ts';
import { uploadPhoto } from '../talks/helpers.ts';
import { createLocalStreamRenderer } from '../../src/compute/local/stream/index.ts';
import { newestPicture, receiver } from '../compute/local/stream/session.ts';
import { meanColour } from '../helpers/video.ts';
import { startLiveService } from '../helpers/live-service.ts';
import { createFakeStreamRenderer } from '../helpers/stream-renderer.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { runRemoteWorker } from '../../src/compute/remote/worker/index.ts';
import { createLogger } from '../../src/log.ts';

/**
 * A presenter's `background.source_url` on a live stream: the picture is fetched once when
 * the stream opens and the person is shown on it. Before, an agent (or a clip stream) took
 * the field and streamed the presenter's own picture: only `background.color` was used.
 */
const suite = streamSuite();
const dir = mkdtempSync(join(tmpdir(), 'mimic-stream-bg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RED = [200, 30, 30];
const BLUE = [30, 60, 200];

/** 1024x512, red on the left half and blue on the right: covering the 512x512 frame keeps its middle, so red left, blue right. */
async function twoColours(): Promise<string> {
  const file = join(dir, 'two-colours.png');
  const half = (rgb: number[]) => sharp({ create: { width: 512, height: 512, channels: 3, background: { r: rgb[0]!, g: rgb[1]!, b: rgb[2]! } } }).png().toBuffer();
  await sharp({ create: { width: 1024, height: 512, channels: 3, background: '#000' } })
    .composite([{ input: await half(RED), left: 0, top: 0 }, { input: await half(BLUE), left: 512, top: 0 }])
    .png()
    .toFile(file);
  return file;
}

const agentBody = (background: object) => ({
  preview_name: 'Emma',
  presenter: { type: 'clip', presenter_id: PRESENTER, background },
  llm: { provider: 'openai', model: 'llama3.2', base_url: 'http://localhost:11434/v1', instructions: 'Be brief.' },
});

describe('a picture background on a live stream', () => {
  it('an agent stream shows the person on the agent presenter\'s picture, in a decoded frame', { timeout: 180_000 }, async () => {
    const { h, renderer } = suite.make();
    const u = h.user();
    const picture = await uploadPhoto(h, u.key, await twoColours(), 'two-colours.png');
    const agent = await h.call('POST', '/agents', { key: u.key, body: agentBody({ source_url: picture }) });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const stream = await h.call('POST', `/agents/${agent.body.id}/streams`, { key: u.key, body: {} });
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);

    // What the stream's renderer was asked to show, rendered by the real CPU engine.
    const asked = renderer.opened[0]!;
    expect(asked.background).toEqual({ kind: 'image', path: expect.any(String) });
    const engine = createLocalStreamRenderer();
    const r = receiver();
    const session = await engine.open({ ...asked, workDir: dir }, r.sink, r.onEvent);
    try {
      await session.start({ codec: 'h264', fluent: true, warmup: false });
      await r.until(() => r.video.length > 30, 'video');
      const { image } = await newestPicture(dir, 'h264', r.video, session.width, session.height, 'agent-background');
      const frame = Buffer.from(image.data);
      const near = (got: number[], want: number[]) => got.every((v, i) => Math.abs(v - want[i]!) <= 20);
      const w = session.width;
      // The bottom left is the presenter's suit: the top and the middle of the left edge are the picture.
      const colourAt = (x: number, y: number) => meanColour(frame, w, { x, y, w: 24, h: 24 });
      for (const [x, y] of [[4, 4], [4, session.height / 2]] as const) expect(near(colourAt(x, y), RED), `left edge at ${x},${y}`).toBe(true);
      for (const [x, y] of [[w - 28, 4], [w - 28, session.height - 28]] as const) expect(near(colourAt(x, y), BLUE), `right edge at ${x},${y}`).toBe(true);
      // The face keeps its own colours (skin: more red than green), neither red nor blue of the picture.
      const face = meanColour(frame, w, { x: w / 2 - 10, y: session.height / 2 - 20, w: 20, h: 20 });
      expect(face[0]).toBeGreaterThan(face[1] + 20);
      expect(near(face, RED)).toBe(false);
    } finally {
      await session.close();
      await engine.close();
    }
  });

  it('a clip stream takes background.source_url too, and refuses it beside a color', async () => {
    const { h, renderer } = suite.make();
    const u = h.user();
    const picture = await uploadPhoto(h, u.key, await twoColours(), 'two-colours.png');
    const both = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER, background: { color: '#00ff00', source_url: picture } } });
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ field: 'background', message: 'takes color or source_url, not both' }]);
    const res = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER, background: { source_url: picture } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const asked = renderer.opened[0]!;
    expect(asked.background).toEqual({ kind: 'image', path: expect.any(String) });
    const stored = await sharp(asked.background!.kind === 'image' ? asked.background!.path : '').raw().toBuffer({ resolveWithObject: true });
    expect(stored.info).toMatchObject({ width: 1024, height: 512 });
  });

  it('answers a 400 naming the picture when it cannot be fetched, opening nothing', async () => {
    const { h, renderer } = suite.make();
    const u = h.user();
    const agent = await h.call('POST', '/agents', { key: u.key, body: agentBody({ source_url: 'https://127.0.0.1/bg.png' }) });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const res = await h.call('POST', `/agents/${agent.body.id}/streams`, { key: u.key, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.description).toMatch(/^Could not load the background picture: host 127\.0\.0\.1 is a loopback address/);
    expect(renderer.opened).toHaveLength(0);
  });

  it('a remote worker taking the stream.render task receives the picture', { timeout: 120_000 }, async () => {
    const live = await startLiveService({ env: { MIMIC_STREAM_ICE_ADDRESS: '127.0.0.1', MIMIC_WORKER: 'false', MIMIC_COMPUTE_BACKEND: 'remote' } });
    const stop = new AbortController();
    const streams = createFakeStreamRenderer();
    let worker: Promise<unknown> | undefined;
    try {
      const form = new FormData();
      form.set('image', new Blob([readFileSync(await twoColours())]), 'two-colours.png');
      const upload = await fetch(`${live.base}/images`, { method: 'POST', headers: { authorization: `Basic ${live.key}` }, body: form });
      const picture = ((await upload.json()) as { url: string }).url;
      const agent = await live.api('POST', '/agents', agentBody({ source_url: picture }));
      expect(agent.status, JSON.stringify(agent.body)).toBe(201);
      const { token } = await live.running.services.compute.workers.add('stream-worker');
      worker = runRemoteWorker({ server: live.base, token, backend: createFakeBackend(), streams, log: createLogger(() => {}), signal: stop.signal, waitMs: 1000 });
      const stream = await live.api('POST', `/agents/${agent.body.id}/streams`, {});
      expect(stream.status, JSON.stringify(stream.body)).toBe(201);
      // The create answers before the stream is prepared (at most 250 ms waited): the worker may open it later.
      await expect.poll(() => streams.opened.length, { timeout: 60_000 }).toBeGreaterThan(0);
      const asked = streams.opened[0]!;
      expect(asked.background).toEqual({ kind: 'image', path: expect.any(String) });
      const downloaded = await sharp(asked.background!.kind === 'image' ? asked.background!.path : '').metadata();
      expect([downloaded.width, downloaded.height]).toEqual([1024, 512]);
    } finally {
      stop.abort();
      await worker?.catch(() => undefined);
      await streams.close();
      await live.close();
    }
  });
});
