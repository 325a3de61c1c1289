/**
 * Live streams with the real renderers, no test double: the service listens on loopback, a
 * libwebrtc peer (the browser) connects the demo client's way, and what it decodes is the
 * face the CPU engine renders and the voice's speech. Once with the local engine in its own
 * render process, once through a remote worker (the built-in one, in this process) that
 * claims the `stream.render` task and streams RTP back over its signed socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveService, type LiveService } from '../helpers/live-service.ts';
import { answerOffer, type BrowserPeer } from '../helpers/browser-peer.ts';
import { runRemoteWorker } from '../../src/compute/remote/worker/index.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { createLocalStreamRenderer } from '../../src/compute/local/stream/index.ts';
import { createLogger } from '../../src/log.ts';
import type { StreamService } from '../../src/streams/hub.ts';
import { USERS } from '../../src/users/contract.ts';

const PRESENTER = 'eileen-Nc7kQ2rT5x';
let live: LiveService | undefined;
const peers: BrowserPeer[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) p.close();
  for (const c of cleanups.splice(0).reverse()) await c();
  await live?.close();
  live = undefined;
});

const streamsOf = (l: LiveService) => (l.running.services.modules as unknown as { streams: { service: StreamService } }).streams.service;

/** The demo client's sequence against the live service; answers with `codec` preferred. */
async function connect(l: LiveService, prefix: string, body: object, codec: 'VP8' | 'H264') {
  const created = await l.api('POST', prefix, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { id, session_id: sessionId } = created.body as { id: string; session_id: string };
  const peer = await answerOffer(created.body.offer.sdp, { preferCodec: codec });
  peers.push(peer);
  const path = `${prefix}/${id}`;
  expect((await l.api('POST', `${path}/sdp`, { answer: { type: 'answer', sdp: peer.answerSdp }, session_id: sessionId })).status).toBe(200);
  for (const c of peer.candidates) await l.api('POST', `${path}/ice`, { ...c, session_id: sessionId });
  expect((await l.api('POST', `${path}/ice`, { session_id: sessionId })).status).toBe(200);
  return { id, sessionId, path, peer };
}

/** Idle frames, then a spoken sentence: frames of the face's size, sound, and the events in order; then DELETE frees it all. */
async function speaksOnce(l: LiveService, codec: 'VP8' | 'H264') {
  const s = await connect(l, '/clips/streams', { presenter_id: PRESENTER, fluent: true }, codec);
  await s.peer.waitUntil(() => s.peer.frames >= 10, 'idle frames', 60_000);
  expect([...s.peer.sizes]).toEqual(['512x512']);
  const spoken = await l.api('POST', s.path, { script: { type: 'text', input: 'Hello there. This is a live stream.' }, session_id: s.sessionId });
  expect(spoken.status, JSON.stringify(spoken.body)).toBe(200);
  const from = s.peer.messages.length;
  const started = await s.peer.waitFor('stream/started', { from, timeoutMs: 60_000 });
  expect(JSON.parse(started.slice('stream/started:'.length))).toEqual({ metadata: { videoId: spoken.body.video_id } });
  const audioAtStart = s.peer.audioChunks;
  await s.peer.waitFor('stream/done', { from, timeoutMs: 60_000 });
  expect(s.peer.audioChunks).toBeGreaterThan(audioAtStart);
  expect((await l.api('DELETE', s.path, { session_id: s.sessionId })).status).toBe(200);
  expect(streamsOf(l).stats()).toMatchObject({ streams: 0, timers: 0 });
  return s;
}

describe('live streams on the real engines', () => {
  // libwebrtc's build here decodes no H.264: H.264 from the engine is decoded in test/compute/local/stream and in Chromium (test/browser).
  it('the local CPU engine streams the presenter idling and speaking', async () => {
    live = await startLiveService({ env: { MIMIC_STREAM_ICE_ADDRESS: '127.0.0.1', MIMIC_ICE_ALLOW: '127.0.0.1/32', MIMIC_WORKER: 'false' } });
    await speaksOnce(live, 'VP8');
  });

  it('a remote worker claims the stream.render task and streams it back over its signed socket', async () => {
    live = await startLiveService({ env: { MIMIC_STREAM_ICE_ADDRESS: '127.0.0.1', MIMIC_ICE_ALLOW: '127.0.0.1/32', MIMIC_WORKER: 'false', MIMIC_COMPUTE_BACKEND: 'remote' } });
    const { token } = await live.running.services.compute.workers.add('stream-worker');
    const stop = new AbortController();
    const backend = createLocalBackend();
    const streams = createLocalStreamRenderer();
    const worker = runRemoteWorker({ server: live.base, token, backend, streams, log: createLogger(() => {}), signal: stop.signal, waitMs: 1000 });
    cleanups.push(async () => {
      stop.abort();
      await worker.catch(() => undefined);
      await Promise.all([backend.close(), streams.close()]);
    });
    await speaksOnce(live, 'VP8');
    // Closed mid-speech: the worker is told to stop, and the time heard comes back and is charged.
    const l = live;
    const credits = async () => (await l.running.services.find(USERS)!.get(l.userId))!.credits;
    const before = await credits();
    const s = await connect(l, '/clips/streams', { presenter_id: PRESENTER }, 'VP8');
    expect((await l.api('POST', s.path, { script: { type: 'text', input: 'This is cut off. Nobody hears this part.' }, session_id: s.sessionId })).status).toBe(200);
    await s.peer.waitFor('stream/started', { timeoutMs: 60_000 });
    expect((await l.api('DELETE', s.path, { session_id: s.sessionId })).status).toBe(200);
    await expect.poll(credits, { timeout: 20_000 }).toBe(before - 1);
    // The stream's task was cancelled when it ended, and the worker let its session go.
    await expect.poll(async () => (await streams.stats()).sessions, { timeout: 20_000 }).toBe(0);
  });
});
