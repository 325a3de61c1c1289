/**
 * A script posted after the SDP answer but before the connection is up (the demo client with
 * stream_warmup off lets its button speak as soon as its signaling state is stable; over a
 * TURN relay ICE and DTLS take a second or more): the hub hands the speech to the render
 * session at once, and the session holds it because its media starts only when the
 * connection is up, so the client hears it from its first word instead of a speech whose
 * start was sent into a connection that was not there yet.
 */
import { describe, expect, it } from 'vitest';
import { streamSuite } from './helpers.ts';
import { uploadPhoto } from '../talks/helpers.ts';
import { answerOffer } from '../helpers/browser-peer.ts';

const suite = streamSuite();
/** A talk stream created (not answered yet) by a user with credits. */
async function talkStream(options: Record<string, unknown> = {}) {
  const { h, renderer, service } = suite.make();
  const u = h.user({ credits: 10 });
  const photo = await uploadPhoto(h, u.key);
  const created = await h.call('POST', '/talks/streams', { key: u.key, body: { source_url: photo, ...options } });
  expect(created.status).toBe(201);
  const { id, session_id: sessionId } = created.body as { id: string; session_id: string };
  return { h, renderer, service, u, created, sessionId, path: `/talks/streams/${id}` };
}

const withoutCandidates = (sdp: string) => sdp.split('\r\n').filter((l) => !l.startsWith('a=candidate:')).join('\r\n');

describe('a script posted before the peer is connected', () => {
  it('is held until the connection is up, then played whole with stream/started and stream/done', async () => {
    const { h, renderer, u, created, sessionId, path } = await talkStream();
    // Neither side learns the other's addresses until the test trickles the browser's: no
    // connectivity check can start before that.
    const peer = suite.keep({ peer: await answerOffer(withoutCandidates(created.body.offer.sdp)) }).peer;
    const sdp = await h.call('POST', `${path}/sdp`, { key: u.key, body: { answer: { type: 'answer', sdp: withoutCandidates(peer.answerSdp) }, session_id: sessionId } });
    expect(sdp.status).toBe(200);

    const spoken = await h.call('POST', path, { key: u.key, body: { script: { type: 'text', input: 'Hello there, early bird.' }, session_id: sessionId } });
    expect(spoken.status).toBe(200);
    // The renderer has the speech (synthesised and handed over), and holds it: it was not
    // started, so nothing of the script played and no frame went out.
    await expect.poll(() => renderer.speeches.map((s) => s.videoId), { timeout: 30_000 }).toEqual([spoken.body.video_id]);
    expect(renderer.started).toEqual([]);
    expect(renderer.played).toEqual([]);
    expect(peer.frames).toBe(0);

    for (const c of peer.candidates) expect((await h.call('POST', `${path}/ice`, { key: u.key, body: { ...c, session_id: sessionId } })).status).toBe(200);
    expect((await h.call('POST', `${path}/ice`, { key: u.key, body: { session_id: sessionId } })).status).toBe(200);
    const started = await peer.waitFor('stream/started', { timeoutMs: 60_000 });
    expect(JSON.parse(started.slice('stream/started:'.length))).toEqual({ metadata: { videoId: spoken.body.video_id } });
    await peer.waitFor('stream/done', { timeoutMs: 60_000 });
    expect(renderer.speeches.map((s) => s.videoId)).toEqual([spoken.body.video_id]);
    expect(renderer.played).toEqual([spoken.body.video_id]);
    expect(peer.frames).toBeGreaterThan(0);
    expect(peer.audioChunks).toBeGreaterThan(0);
    expect((await h.call('DELETE', path, { key: u.key, body: { session_id: sessionId } })).status).toBe(200);
  }, 120_000);

  it('sent while the SDP answer is still being applied, waits for it instead of a ConflictError', async () => {
    const { h, u, created, sessionId, path } = await talkStream();
    const peer = suite.keep({ peer: await answerOffer(created.body.offer.sdp) }).peer;
    // Both in flight at once, the script sent after the answer (the demo's fetches race like this).
    const answering = h.call('POST', `${path}/sdp`, { key: u.key, body: { answer: { type: 'answer', sdp: peer.answerSdp }, session_id: sessionId } });
    const speaking = h.call('POST', path, { key: u.key, body: { script: { type: 'text', input: 'Right on time.' }, session_id: sessionId } });
    const [sdp, spoken] = await Promise.all([answering, speaking]);
    expect(sdp.status).toBe(200);
    expect(spoken.status, JSON.stringify(spoken.body)).toBe(200);
    for (const c of peer.candidates) expect((await h.call('POST', `${path}/ice`, { key: u.key, body: { ...c, session_id: sessionId } })).status).toBe(200);
    await peer.waitFor('stream/started', { timeoutMs: 60_000 });
    await peer.waitFor('stream/done', { timeoutMs: 60_000 });
    expect(peer.frames).toBeGreaterThan(0);
  }, 120_000);

  it('held is not activity: a stream whose peer never connects still closes at its session_timeout', async () => {
    const { h, renderer, service, u, created, sessionId, path } = await talkStream({ session_timeout: 1 });
    const peer = suite.keep({ peer: await answerOffer(withoutCandidates(created.body.offer.sdp)) }).peer;
    expect((await h.call('POST', `${path}/sdp`, { key: u.key, body: { answer: { type: 'answer', sdp: withoutCandidates(peer.answerSdp) }, session_id: sessionId } })).status).toBe(200);
    const spoken = await h.call('POST', path, { key: u.key, body: { script: { type: 'text', input: 'Is anyone there?' }, session_id: sessionId } });
    expect(spoken.status).toBe(200);
    await expect.poll(() => renderer.speeches.length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => service.stats().streams, { timeout: 30_000 }).toBe(0);
    expect(renderer.played).toEqual([]);
    // Its render session closes with it (closing goes on after the stream left the open ones).
    await expect.poll(() => renderer.live().sessions, { timeout: 30_000 }).toBe(0);
  }, 60_000);

  it('sent before any SDP answer, is still a ConflictError', async () => {
    const { h, u, sessionId, path } = await talkStream();
    const spoken = await h.call('POST', path, { key: u.key, body: { script: { type: 'text', input: 'Too soon.' }, session_id: sessionId } });
    expect(spoken.status).toBe(409);
    expect(spoken.body).toMatchObject({ kind: 'ConflictError' });
  }, 60_000);
});
