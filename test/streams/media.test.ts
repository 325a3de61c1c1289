/**
 * Live streams end to end over the real HTTP app: a libwebrtc peer (the browser) connects the
 * way the hosted demo client does, and receives the data channel events, decoded video frames
 * and audio. The renderer is the test double of test/helpers/stream-renderer.ts.
 */
import { describe, expect, it } from 'vitest';
import { PRESENTER, connect, credits, streamSuite, type StreamHarness } from './helpers.ts';
import { uploadPhoto } from '../talks/helpers.ts';
import type { BrowserPeer } from '../helpers/browser-peer.ts';

const suite = streamSuite();
let t: StreamHarness | undefined;
const peers = { push: (p: BrowserPeer) => suite.keep({ peer: p }) };

const videoCodecs = (sdp: string): string[] => {
  const video = sdp.split(/\r\nm=/).find((s) => s.startsWith('m=video') || s.startsWith('video')) ?? '';
  return [...video.matchAll(/a=rtpmap:\d+ ([\w-]+)\//g)].map((m) => m[1]!.toUpperCase());
};

describe('a talk stream, as the demo client uses it', () => {
  it('warms up, says stream/ready, speaks a text sentence by sentence with stream/started and stream/done, and charges the streamed speech', async () => {
    t = suite.make();
    const { h, renderer, voice } = t;
    const u = h.user({ credits: 10 });
    const photo = await uploadPhoto(h, u.key);
    const s = await connect(h, u.key, '/talks/streams', { source_url: photo, face: { size: 300, top_left: [40, 60] }, stream_warmup: true, end_user_data: { ignored: true } }, { preferCodec: 'VP8' });
    peers.push(s.peer);
    expect(s.create).toMatchObject({ id: expect.stringMatching(/^strm_/), session_id: expect.any(String), offer: { type: 'offer' }, jsep: { type: 'offer' }, ice_servers: [], fluent: false, interrupt_enabled: true });
    expect(s.create.offer.sdp).toBe(s.create.jsep.sdp);
    expect(s.create.offer.sdp).toMatch(/m=application \d+ UDP\/DTLS\/SCTP webrtc-datachannel/);
    expect(s.create.session_id.length).toBeGreaterThanOrEqual(32);
    // MIMIC_STREAM_ICE_ADDRESS=127.0.0.1: the only candidates offered are on loopback.
    const candidates = s.create.offer.sdp.split('\r\n').filter((l: string) => l.startsWith('a=candidate:'));
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.every((l: string) => l.split(' ')[4] === '127.0.0.1')).toBe(true);
    expect(renderer.opened[0]).toMatchObject({ streamId: s.id, stitch: false, face: { size: 300, top_left: [40, 60] }, seed: s.id });

    await s.peer.waitFor('stream/ready');
    expect(renderer.started[0]).toEqual({ codec: 'vp8', fluent: false, warmup: true });
    await s.peer.waitUntil(() => s.peer.frames > 3, 'warm-up frames');

    const before = credits(h, u.id);
    const spoken = await h.call('POST', s.path, { key: u.key, body: { script: { type: 'text', input: 'Hello there. How are you today?', subtitles: 'false' }, config: { stitch: true }, session_id: s.sessionId, metadata: { chat_id: 'x' } } });
    expect(spoken.status).toBe(200);
    expect(spoken.body).toEqual({ status: 'started', duration: expect.any(Number), session_id: s.sessionId, video_id: expect.any(String) });
    const started = await s.peer.waitFor('stream/started');
    expect(JSON.parse(started.slice('stream/started:'.length))).toEqual({ metadata: { videoId: spoken.body.video_id } });
    const framesAtStart = s.peer.frames;
    await s.peer.waitFor('stream/done');
    expect(s.peer.frames).toBeGreaterThan(framesAtStart);
    expect(s.peer.audioChunks).toBeGreaterThan(0);
    // Two sentences, two syntheses, two pieces: the first was handed over before the second was spoken.
    expect(voice.calls.map((c) => c.text)).toEqual(['Hello there.', 'How are you today?']);
    expect(renderer.speeches.map((p) => p.last)).toEqual([false, true]);
    await s.peer.waitUntil(() => credits(h, u.id) < before, 'the charge');
    expect(credits(h, u.id)).toBe(before - 1);

    expect((await h.call('DELETE', s.path, { key: u.key, body: { session_id: s.sessionId } })).status).toBe(200);
    expect(t.service.stats()).toMatchObject({ streams: 0, timers: 0 });
    expect(renderer.live()).toEqual({ sessions: 0, processes: 0, sockets: 0 });
  });
});

describe('video codecs', () => {
  it('compatibility_mode off offers H.264 only, and a fluent stream sends H.264 idle frames with key frames, and Opus', async () => {
    t = suite.make();
    const { h, renderer } = t;
    const u = h.user();
    // libwebrtc as @roamhq/wrtc builds it has no H.264: a werift client checks the packets are H.264 with key frames.
    const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, compatibility_mode: 'off', fluent: true, driver_id: 'ignored' }, { client: 'werift' });
    peers.push(s.peer);
    expect(videoCodecs(s.create.offer.sdp)).toEqual(['H264']);
    expect(s.create).toMatchObject({ fluent: true, interrupt_enabled: true });
    expect(renderer.started[0]).toEqual({ codec: 'h264', fluent: true, warmup: false });
    await s.peer.waitUntil(() => s.peer.frames > 5 && s.peer.audioChunks > 5, 'H.264 frames and Opus');
    const peer = s.peer as typeof s.peer & { codec: string; idrSeen: boolean };
    expect(peer.codec.toLowerCase()).toBe('video/h264');
    await s.peer.waitUntil(() => peer.idrSeen, 'an H.264 key frame');
  });

  it('compatibility_mode on offers VP8 only; auto offers both and the answer decides (H.264 from a client that prefers it, VP8 from libwebrtc)', async () => {
    t = suite.make();
    const { h, renderer } = t;
    const u = h.user();
    const on = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER, compatibility_mode: 'on' } });
    expect(videoCodecs(on.body.offer.sdp)).toEqual(['VP8']);
    const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }, { client: 'werift' });
    peers.push(s.peer);
    expect(videoCodecs(s.create.offer.sdp).sort()).toEqual(['H264', 'VP8']);
    // The renderer starts once the connection is up (its first keyframe must not be dropped).
    await s.peer.waitUntil(() => renderer.started.length === 1, 'the renderer started');
    expect(renderer.started[0]!.codec).toBe('h264');
    const v = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true });
    peers.push(v.peer);
    await v.peer.waitUntil(() => renderer.started.length === 2, 'the second renderer started');
    expect(renderer.started[1]!.codec).toBe('vp8');
    await v.peer.waitUntil(() => v.peer.frames > 3, 'VP8 frames decoded');
  });
});
